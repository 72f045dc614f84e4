// Proleptic Gregorian calendar arithmetic on "wall ms" (local date-time fields encoded as UTC
// epoch ms, see zoneRules.ts): building a wall date from its fields, day numbers and ISO
// weekdays, and the text forms of local readings and UTC offsets used by previews and messages.
// `Date.UTC` maps years 0–99 to 1900–1999, so dates are built with `setUTCFullYear` instead.
import { DAY_MS } from './instant.ts';

/**
 * Wall ms of local midnight on `year-month-day`, or `null` when that calendar date does not
 * exist (month 13, February 30, …). Any year 0–9999 works, including 0–99.
 */
export function wallDateMs(year: number, month: number, day: number): number | null {
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.getTime();
}

/** Number of the local day holding a wall reading (days since 1970-01-01). */
export const wallDay = (wallMs: number): number => Math.floor(wallMs / DAY_MS);

/** ISO weekday (1 = Monday … 7 = Sunday) of a day number; 1970-01-01 was a Thursday. */
export const isoWeekday = (day: number): number => ((((day + 3) % 7) + 7) % 7) + 1;

const pad = (value: number, width: number): string => String(value).padStart(width, '0');

/** `YYYY-MM-DD` of a wall reading. */
export function formatWallDate(wallMs: number): string {
  const d = new Date(wallMs);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`;
}

/** `HH:mm`, `HH:mm:ss` or `HH:mm:ss.sss` of a wall reading: seconds and fraction only when non-zero. */
export function formatWallTime(wallMs: number): string {
  const d = new Date(wallMs);
  const base = `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}`;
  const ms = d.getUTCMilliseconds();
  if (d.getUTCSeconds() === 0 && ms === 0) return base;
  const withSeconds = `${base}:${pad(d.getUTCSeconds(), 2)}`;
  return ms === 0 ? withSeconds : `${withSeconds}.${pad(ms, 3)}`;
}

/** `YYYY-MM-DDTHH:mm:ss`, with `.sss` only when the fraction is non-zero. */
export function formatWallDateTime(wallMs: number): string {
  const d = new Date(wallMs);
  const ms = d.getUTCMilliseconds();
  const base = `${formatWallDate(wallMs)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  return ms === 0 ? base : `${base}.${pad(ms, 3)}`;
}

/** `±HH:MM` of a UTC offset in ms, with `:SS` when it is not a whole minute (local mean time). */
export function formatOffset(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const totalSeconds = Math.round(Math.abs(offsetMs) / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  const base = `${sign}${pad(hours, 2)}:${pad(minutes, 2)}`;
  return seconds === 0 ? base : `${base}:${pad(seconds, 2)}`;
}
