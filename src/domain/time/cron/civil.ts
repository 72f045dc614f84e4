// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), used by the
// cron search to move through local wall-clock dates without Date objects. Valid for every year,
// including 0000 and negative years, which `Date.UTC` would misread for years 0–99.
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../instant.ts';

/** A calendar date: `month` 1–12, `day` 1–31. */
export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** A wall-clock reading down to the minute. */
export interface WallMinute extends CivilDate {
  hour: number;
  minute: number;
}

const DAYS_PER_ERA = 146_097;
/** Day number of 0000-03-01, the start of the era arithmetic below. */
const EPOCH_SHIFT = 719_468;

/** Day number (days since 1970-01-01) of a calendar date. */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const shiftedMonth = month > 2 ? month - 3 : month + 9;
  const dayOfYear = Math.floor((153 * shiftedMonth + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * DAYS_PER_ERA + dayOfEra - EPOCH_SHIFT;
}

/** The calendar date of a day number, written into `out` (reused to avoid allocation). */
export function civilFromDays(days: number, out: CivilDate): CivilDate {
  const z = days + EPOCH_SHIFT;
  const era = Math.floor(z / DAYS_PER_ERA);
  const dayOfEra = z - era * DAYS_PER_ERA;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  out.day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  out.month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  out.year = yearOfEra + era * 400 + (out.month <= 2 ? 1 : 0);
  return out;
}

/** The local fields of a wall ms (local fields encoded as UTC ms), written into `out`. */
export function wallMinuteOf(wallMs: number, out: WallMinute): WallMinute {
  const days = Math.floor(wallMs / DAY_MS);
  civilFromDays(days, out);
  const inDay = wallMs - days * DAY_MS;
  out.hour = Math.floor(inDay / HOUR_MS);
  out.minute = Math.floor((inDay - out.hour * HOUR_MS) / MINUTE_MS);
  return out;
}

/** Gregorian leap-year rule. */
export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Number of days in a month of a year (February follows the leap-year rule). */
export const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : (MONTH_LENGTHS[month - 1] ?? 31);

/** The longest a month can be in any year (February: 29). */
export const maxDaysInMonth = (month: number): number => (month === 2 ? 29 : (MONTH_LENGTHS[month - 1] ?? 31));

/** Day of the week of a day number: 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export const weekdayOf = (days: number): number => (((days + 4) % 7) + 7) % 7;
