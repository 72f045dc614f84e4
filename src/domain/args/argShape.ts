// Reading untrusted tool arguments safely: plain-object checks, own-property reads (an inherited
// or `__proto__` member is never read as an argument), unknown-key detection, and short
// descriptions of received values for error messages.
import { quoteValue } from './quote.ts';

/** An object parsed from JSON (or built as a literal): not null, not an array, plain prototype. */
export type ArgObject = Readonly<Record<string, unknown>>;

/** True for plain objects (`{…}` or `Object.create(null)`), false for arrays, class instances and primitives. */
export function isPlainObject(value: unknown): value is ArgObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The object's own member `key`, or `undefined`; inherited members are never read. */
export const ownValue = (obj: ArgObject, key: string): unknown => (Object.hasOwn(obj, key) ? obj[key] : undefined);

/** True when `key` is an own member whose value is not `undefined`. */
export const hasArg = (obj: ArgObject, key: string): boolean => ownValue(obj, key) !== undefined;

/** The object's own keys that are not in `allowed` (including `__proto__` or `constructor`). */
export const unknownKeys = (obj: ArgObject, allowed: readonly string[]): string[] => Object.keys(obj).filter((k) => !allowed.includes(k));

/** `a`, `a and b`, `a, b and c`. */
export function listWords(words: readonly string[], conjunction = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

const MAX_SHOWN = 60;
const MAX_KEYS_SHOWN = 5;

/** Member names for a message: the first five described, then how many more there are. */
export function describeKeys(keys: readonly string[]): string {
  const shown = keys.slice(0, MAX_KEYS_SHOWN).map(describeValue);
  if (keys.length > MAX_KEYS_SHOWN) shown.push(`${keys.length - MAX_KEYS_SHOWN} more`);
  return listWords(shown);
}

/** A short, model-readable rendering of a received value: JSON when possible, cut at 60 characters, bounded work (`quoteValue`). */
export const describeValue = (value: unknown): string => quoteValue(value, MAX_SHOWN);
