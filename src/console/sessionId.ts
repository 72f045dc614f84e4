// The Session ids the console accepts by default in paths and filters: letters, digits, `_`, `-`
// and `.`, starting with a letter or digit, at most 64 characters — safe as a file name on every
// platform, so a Host that names files after its Sessions (the reference Host's transcripts)
// never sees another. A Host whose ids look otherwise passes its own `isSessionId`.

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** True when `value` can name a Session under the default rule. */
export const isConsoleSessionId = (value: unknown): value is string => typeof value === 'string' && SESSION_ID.test(value);

/** What the console says about an id the default rule refuses. */
export const SESSION_ID_RULE = 'A Session id is 1-64 characters: letters, digits, "_", "-" and ".", starting with a letter or digit.';
