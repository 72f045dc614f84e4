// Field-by-field search for matching local wall-clock minutes, in "wall ms" (local fields encoded
// as UTC epoch ms). The search settles the month, then the day, then the hour, then the minute,
// and whenever a field has no further match it moves the next larger field by one and resets the
// smaller ones, so it visits a handful of candidates instead of every minute. Time zones play no
// part here: the caller bounds the search to a stretch of wall time with one UTC offset.
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../instant.ts';
import { daysFromCivil, daysInMonth, type WallMinute, wallMinuteOf } from './civil.ts';
import { nextMatchingDay, previousMatchingDay } from './match.ts';
import { type CronSpec, fieldHas } from './spec.ts';

/** Returned when no wall minute matches inside the bounds. */
export const NO_WALL = Number.NaN;

const scratch: WallMinute = { year: 0, month: 0, day: 0, hour: 0, minute: 0 };

/**
 * The first wall minute `w` with `fromWall ≤ w < limitWall` that the expression matches, or
 * `NO_WALL`.
 */
export function firstMatchingWall(spec: CronSpec, fromWall: number, limitWall: number): number {
  const start = Math.ceil(fromWall / MINUTE_MS) * MINUTE_MS;
  if (!(start < limitWall)) return NO_WALL;
  let { year, month, day, hour, minute } = wallMinuteOf(start, scratch);
  for (;;) {
    if (!fieldHas(spec.month, month)) {
      const next = spec.month.next[month]!;
      if (next < 0) {
        year++;
        month = spec.month.values[0]!;
      } else month = next;
      day = 1;
      hour = 0;
      minute = 0;
      if (daysFromCivil(year, month, 1) * DAY_MS >= limitWall) return NO_WALL;
    }
    const matchedDay = nextMatchingDay(spec, year, month, day);
    if (matchedDay < 0) {
      month++;
      day = 1;
      hour = 0;
      minute = 0;
      if (month > 12) {
        year++;
        month = 1;
      }
      if (daysFromCivil(year, month, 1) * DAY_MS >= limitWall) return NO_WALL;
      continue;
    }
    if (matchedDay !== day) {
      day = matchedDay;
      hour = 0;
      minute = 0;
    }
    const dayStart = daysFromCivil(year, month, day) * DAY_MS;
    if (dayStart >= limitWall) return NO_WALL;
    const matchedHour = spec.hour.next[hour]!;
    if (matchedHour < 0) {
      day++;
      hour = 0;
      minute = 0;
      continue;
    }
    if (matchedHour !== hour) {
      hour = matchedHour;
      minute = 0;
    }
    const matchedMinute = spec.minute.next[minute]!;
    if (matchedMinute < 0) {
      hour++;
      minute = 0;
      continue;
    }
    const wall = dayStart + hour * HOUR_MS + matchedMinute * MINUTE_MS;
    return wall < limitWall ? wall : NO_WALL;
  }
}

/**
 * The last wall minute `w` with `floorWall ≤ w ≤ toWall` that the expression matches, or
 * `NO_WALL`.
 */
export function lastMatchingWall(spec: CronSpec, toWall: number, floorWall: number): number {
  const start = Math.floor(toWall / MINUTE_MS) * MINUTE_MS;
  if (!(start >= floorWall)) return NO_WALL;
  let { year, month, day, hour, minute } = wallMinuteOf(start, scratch);
  for (;;) {
    if (!fieldHas(spec.month, month)) {
      const prev = spec.month.prev[month]!;
      if (prev < 0) {
        year--;
        month = spec.month.values[spec.month.values.length - 1]!;
      } else month = prev;
      day = 31;
      hour = 23;
      minute = 59;
      if ((daysFromCivil(year, month, 1) + daysInMonth(year, month)) * DAY_MS <= floorWall) return NO_WALL;
    }
    const matchedDay = previousMatchingDay(spec, year, month, day);
    if (matchedDay < 0) {
      month--;
      day = 31;
      hour = 23;
      minute = 59;
      if (month < 1) {
        year--;
        month = 12;
      }
      if ((daysFromCivil(year, month, 1) + daysInMonth(year, month)) * DAY_MS <= floorWall) return NO_WALL;
      continue;
    }
    if (matchedDay !== day) {
      day = matchedDay;
      hour = 23;
      minute = 59;
    }
    const dayStart = daysFromCivil(year, month, day) * DAY_MS;
    if (dayStart + DAY_MS <= floorWall) return NO_WALL;
    const matchedHour = hour < 0 ? -1 : spec.hour.prev[hour]!;
    if (matchedHour < 0) {
      day--;
      hour = 23;
      minute = 59;
      continue;
    }
    if (matchedHour !== hour) {
      hour = matchedHour;
      minute = 59;
    }
    const matchedMinute = minute < 0 ? -1 : spec.minute.prev[minute]!;
    if (matchedMinute < 0) {
      hour--;
      minute = 59;
      continue;
    }
    const wall = dayStart + hour * HOUR_MS + matchedMinute * MINUTE_MS;
    return wall >= floorWall ? wall : NO_WALL;
  }
}
