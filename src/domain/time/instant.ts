// Instants as epoch milliseconds and their one canonical text form (docs/tasks.md): UTC
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

/** How many recent answers {@link formatInstant} keeps. */
const RECENT = 4;
const recentMs: number[] = new Array(RECENT).fill(Number.NaN);
const recentText: string[] = new Array(RECENT).fill('');
let nextSlot = 0;

/**
 * Canonical UTC text of an instant in range (the caller checks the range). The latest few answers
 * are kept: a delivery commit formats each receipt's occurrence and delivery time and the task's
 * next target in turn, the same few instants for every task of a wake, so each is formatted once.
 */
export function formatInstant(ms: number): string {
  for (let i = 0; i < RECENT; i++) if (recentMs[i] === ms) return recentText[i] as string;
  const text = new Date(ms).toISOString();
  recentMs[nextSlot] = ms;
  recentText[nextSlot] = text;
  nextSlot = (nextSlot + 1) % RECENT;
  return text;
}

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

const digitsAt = (text: string, from: number, count: number): number => {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
};

/** Days from 1970-01-01 to a proleptic Gregorian civil date (month 1–12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Epoch ms of canonical text known to be valid (records, receipts): read from its digits, which
 * is several times faster than `Date.parse` on the hot paths of delivery and restore.
 */
export function instantMs(text: string): number {
  const days = daysFromCivil(digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2));
  return (
    days * DAY_MS +
    digitsAt(text, 11, 2) * HOUR_MS +
    digitsAt(text, 14, 2) * MINUTE_MS +
    digitsAt(text, 17, 2) * SECOND_MS +
    digitsAt(text, 20, 3)
  );
}
