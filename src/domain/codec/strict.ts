// Strict reading of untrusted JSON values for the stored domain: exact key sets, typed members,
// and one failure shape. Every problem becomes a `corrupt_schedule_log` ScheduleError whose
// message names where it was found (document, task id or index) and the field.
import { ScheduleError } from '../errors.ts';

/**
 * Where a value was read from, for messages: e.g. `schedule.json: task "sch_3" (tasks[2])`. Either
 * the text itself or a place that spells it only when a message needs it (a large domain names
 * every row it reads, and almost never prints one).
 */
export type Where = string | Place;

/** A place in a document whose text is built on demand, by `String(place)`. */
export interface Place {
  toString(): string;
}

/** Throws the decoder's one failure: `corrupt_schedule_log` naming the place and the field. */
export function corrupt(where: Where, field: string, problem: string): never {
  throw new ScheduleError('corrupt_schedule_log', `${where}: ${field} ${problem}`);
}

/** True for a plain JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads an object whose keys must all be in `required` or `optional`, with every `required` key
 * present. Returns the object for member access; members are still unchecked.
 */
export function readObject(
  value: unknown,
  where: Where,
  field: string,
  required: readonly string[],
  optional: readonly string[] = [],
): Record<string, unknown> {
  if (!isPlainObject(value)) corrupt(where, field === '' ? 'entry' : field, `must be an object, found ${describe(value)}`);
  // Own keys are distinct, so when every key is known and as many are required as there are
  // required names, none is missing.
  let requiredFound = 0;
  for (const key of Object.keys(value)) {
    if (required.includes(key)) requiredFound++;
    else if (!optional.includes(key)) {
      const known = [...required, ...optional].join(', ');
      corrupt(where, prefixed(field, key), `is not a known field (expected only: ${known})`);
    }
  }
  if (requiredFound === required.length) return value;
  for (const key of required) {
    if (!Object.hasOwn(value, key)) corrupt(where, prefixed(field, key), 'is missing');
  }
  return value;
}

/** Joins a parent field path and a member name (`record` + `title` → `record.title`). */
export const prefixed = (field: string, key: string): string => (field === '' ? key : `${field}.${key}`);

/** A short description of a bad value for messages, never the whole value. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 57)}..."` : text;
  }
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** A non-empty string of at most `max` characters. */
export const isBoundedString = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** A safe integer at least `min`. */
export const isSafeIntegerAtLeast = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min;
