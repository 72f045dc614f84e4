// Session ids as the Host accepts them. Each Session keeps its transcript in a file named after
// its id, so an id must be a safe file name on every platform: the console's default rule
// (letters, digits, `_`, `-` and `.`, starting with a letter or digit, at most 64 characters).
import { isConsoleSessionId, SESSION_ID_RULE } from '../../src/console/index.ts';

/** True when `value` can name a Session (and its transcript file). */
export const isSessionId = isConsoleSessionId;

export { SESSION_ID_RULE };

/** Throws a TypeError naming the rule when `value` is not a Session id. */
export function requireSessionId(value: unknown): string {
  if (!isSessionId(value)) throw new TypeError(`${JSON.stringify(value) ?? String(value)} is not a Session id. ${SESSION_ID_RULE}`);
  return value;
}
