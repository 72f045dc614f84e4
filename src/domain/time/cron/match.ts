// Which calendar days a cron expression matches (docs/selectors.md day rule) and its static feasibility.
// When day-of-month or day-of-week is a star field a day must match both; otherwise either is
// enough. The day searches below jump between candidate days inside one month with table
// lookups instead of visiting every day.
import { daysFromCivil, daysInMonth, maxDaysInMonth, weekdayOf } from './civil.ts';
import { type CronSpec, fieldHas } from './spec.ts';

/** True when the local date (year, month 1–12, day) matches the month and day fields. */
export function cronDateMatches(spec: CronSpec, year: number, month: number, day: number): boolean {
  if (!fieldHas(spec.month, month) || day > daysInMonth(year, month)) return false;
  const dom = fieldHas(spec.dayOfMonth, day);
  const dow = fieldHas(spec.dayOfWeek, weekdayOf(daysFromCivil(year, month, day)));
  return spec.domStar || spec.dowStar ? dom && dow : dom || dow;
}

/**
 * True when some date can match, decided without a walk: with the "either" rule every month in
 * the month field has matching days; with the "both" rule some listed month must be long enough
 * (in some year) for some listed day of the month, and every such date falls on every weekday in
 * some year.
 */
export function cronCanMatch(spec: CronSpec): boolean {
  if (!(spec.domStar || spec.dowStar)) return true;
  const firstDay = spec.dayOfMonth.values[0]!;
  return spec.month.values.some((month) => firstDay <= maxDaysInMonth(month));
}

/** Days from weekday `weekday` forward to the nearest matched weekday (0 when it matches). */
function daysToNextWeekday(spec: CronSpec, weekday: number): number {
  const next = spec.dayOfWeek.next[weekday]!;
  return next >= 0 ? next - weekday : spec.dayOfWeek.values[0]! + 7 - weekday;
}

/** Days from weekday `weekday` back to the nearest matched weekday (0 when it matches). */
function daysToPreviousWeekday(spec: CronSpec, weekday: number): number {
  const prev = spec.dayOfWeek.prev[weekday]!;
  return prev >= 0 ? weekday - prev : weekday + 7 - spec.dayOfWeek.values[spec.dayOfWeek.values.length - 1]!;
}

/**
 * The first day ≥ `from` of (year, month) that matches the day fields, or -1. The month field is
 * not consulted.
 */
export function nextMatchingDay(spec: CronSpec, year: number, month: number, from: number): number {
  const length = daysInMonth(year, month);
  if (from > length) return -1;
  const weekdayOfFirst = weekdayOf(daysFromCivil(year, month, 1));
  const dom = spec.dayOfMonth.next;
  if (spec.domStar || spec.dowStar) {
    let day = from;
    while (day <= length) {
      day = dom[day]!;
      if (day < 0 || day > length) return -1;
      const ahead = daysToNextWeekday(spec, (weekdayOfFirst + day - 1) % 7);
      if (ahead === 0) return day;
      day += ahead;
    }
    return -1;
  }
  const byDom = dom[from]!;
  const byDow = from + daysToNextWeekday(spec, (weekdayOfFirst + from - 1) % 7);
  const best = byDom >= 0 && byDom < byDow ? byDom : byDow;
  return best <= length ? best : -1;
}

/**
 * The last day ≤ `from` of (year, month) that matches the day fields, or -1; `from` may exceed the
 * month's length. The month field is not consulted.
 */
export function previousMatchingDay(spec: CronSpec, year: number, month: number, from: number): number {
  if (from < 1) return -1;
  const length = daysInMonth(year, month);
  const start = Math.min(from, length);
  const weekdayOfFirst = weekdayOf(daysFromCivil(year, month, 1));
  const dom = spec.dayOfMonth.prev;
  if (spec.domStar || spec.dowStar) {
    let day = start;
    while (day >= 1) {
      day = dom[day]!;
      if (day < 1) return -1;
      const back = daysToPreviousWeekday(spec, (weekdayOfFirst + day - 1) % 7);
      if (back === 0) return day;
      day -= back;
    }
    return -1;
  }
  const byDom = dom[start]!;
  const byDow = start - daysToPreviousWeekday(spec, (weekdayOfFirst + start - 1) % 7);
  const best = Math.max(byDom, byDow);
  return best >= 1 ? best : -1;
}
