// Instants as epoch milliseconds and their one canonical text form (SPEC §2): UTC
// `YYYY-MM-DDTHH:mm:ss.sssZ` with a four-digit year 0001–9999.

/** First representable target: 0001-01-01T00:00:00.000Z. */
export const MIN_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
/** Last representable target: 9999-12-31T23:59:59.999Z. */
export const MAX_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const CANONICAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;

/** True when `ms` is an integer instant inside the representable target range. */
export const inTargetRange = (ms: number): boolean => Number.isInteger(ms) && ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS;

/** Canonical UTC text of an instant in range (the caller checks the range). */
export const formatInstant = (ms: number): string => new Date(ms).toISOString();

/**
 * Parses canonical UTC text back to epoch ms, or `null` when the text is not exactly canonical
 * (wrong shape, impossible date, or outside 0001–9999).
 */
export function parseCanonicalInstant(text: string): number | null {
  if (!CANONICAL.test(text)) return null;
  const ms = Date.parse(text);
  if (!Number.isFinite(ms) || !inTargetRange(ms)) return null;
  return formatInstant(ms) === text ? ms : null;
}

/** Epoch ms of canonical text known to be valid (records, receipts). */
export const instantMs = (text: string): number => Date.parse(text);
