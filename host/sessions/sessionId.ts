// Session ids as the Host accepts them. Each Session keeps its transcript in a file named after
// its id, so an id must be a safe file name on every platform: letters, digits, `_`, `-` and
// `.`, starting with a letter or digit, at most 64 characters.

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** True when `value` can name a Session (and its transcript file). */
export const isSessionId = (value: unknown): value is string => typeof value === 'string' && SESSION_ID.test(value);

/** What the Host says about an id it refuses. */
export const SESSION_ID_RULE = 'A Session id is 1-64 characters: letters, digits, "_", "-" and ".", starting with a letter or digit.';

/** Throws a TypeError naming the rule when `value` is not a Session id. */
export function requireSessionId(value: unknown): string {
  if (!isSessionId(value)) throw new TypeError(`${JSON.stringify(value) ?? String(value)} is not a Session id. ${SESSION_ID_RULE}`);
  return value;
}
