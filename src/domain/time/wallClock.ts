// Daily and weekly rules: a local time of day, on every date or on listed ISO weekdays, in one
// zone. Evaluation walks local DATES, never minutes: for each candidate date the wall time is
// resolved in the zone; a wall time that does not exist that day (DST gap, or a calendar date the
// zone skipped, like Pacific/Apia's 2011-12-30) is skipped for that date, and one that exists
// twice fires once, at its earlier instant (docs/selectors.md). Only targets in years 0001–9999 exist;
// "no such firing" is `null`.
//
// Offsets lie within ±18 h, so the firing instants of dates d and d + k (k ≥ 2) are always in
// date order; only neighbouring dates can swap (a backward jump of up to a day). The walks
// therefore start two dates before the reading of the bound and, after the first hit, also look
// at the one neighbouring date beyond it.

import { parseTimeOfDay } from '../args/fields.ts';
import type { Rule } from '../tasks/types.ts';
import { isoWeekday, wallDay } from './calendar.ts';
import { DAY_MS, MAX_INSTANT_MS, MIN_INSTANT_MS } from './instant.ts';
import { type ZoneRules, zoneRules } from './zoneRules.ts';

/** A daily or weekly rule. */
export type LocalTimeRule = Extract<Rule, { kind: 'daily' | 'weekly' }>;

/** A daily or weekly rule prepared for evaluation. */
export interface LocalTimeSchedule {
  readonly zone: ZoneRules;
  /** Milliseconds after local midnight. */
  readonly timeOfDayMs: number;
  /** ISO weekdays (1 = Monday … 7 = Sunday) on which it fires; `null` for every date. */
  readonly weekdays: ReadonlySet<number> | null;
}

/** Prepares a stored (already normalised) daily or weekly rule. */
export function localTimeSchedule(rule: LocalTimeRule): LocalTimeSchedule {
  const time = parseTimeOfDay(rule.time);
  if (time === null) throw new RangeError(`not a normalised time of day: ${rule.time}`);
  return {
    zone: zoneRules(rule.timeZone),
    timeOfDayMs: time.ms,
    weekdays: rule.kind === 'weekly' ? new Set(rule.weekdays) : null,
  };
}

/** True when the rule is meant to fire on the local date `day` (days since 1970-01-01). */
export const firesOnDay = (s: LocalTimeSchedule, day: number): boolean => s.weekdays === null || s.weekdays.has(isoWeekday(day));

/** The wall reading the rule aims at on local date `day`. */
export const wallOnDay = (s: LocalTimeSchedule, day: number): number => day * DAY_MS + s.timeOfDayMs;

/** The instant the rule fires on local date `day`, or `null` when it does not fire that date. */
export function firingOnDay(s: LocalTimeSchedule, day: number): number | null {
  return firesOnDay(s, day) ? s.zone.firingInstant(wallOnDay(s, day)) : null;
}

/** Last local date whose firing can still be ≤ 9999-12-31T23:59:59.999Z. */
const LAST_DAY = wallDay(MAX_INSTANT_MS) + 1;
/** First local date whose firing can be ≥ 0001-01-01T00:00:00.000Z. */
const FIRST_DAY = wallDay(MIN_INSTANT_MS) - 1;

/** The first firing strictly after `afterMs`, or `null` when there is none in range. */
export function nextLocalTimeAfter(s: LocalTimeSchedule, afterMs: number): number | null {
  for (let day = Math.max(FIRST_DAY, wallDay(s.zone.toWall(afterMs)) - 2); day <= LAST_DAY; day++) {
    const at = firingOnDay(s, day);
    if (at === null || at <= afterMs) continue;
    const neighbour = firingOnDay(s, day + 1);
    const best = neighbour !== null && neighbour > afterMs && neighbour < at ? neighbour : at;
    return best <= MAX_INSTANT_MS ? best : null;
  }
  return null;
}

/**
 * The latest firing in `[notBeforeMs, atMs]`, or `null` when the rule does not fire in that
 * window (or before year 0001).
 */
export function latestLocalTimeAtOrBefore(s: LocalTimeSchedule, atMs: number, notBeforeMs: number): number | null {
  const floor = Math.max(notBeforeMs, MIN_INSTANT_MS);
  if (atMs < floor) return null;
  const firstDay = Math.max(FIRST_DAY, wallDay(s.zone.toWall(floor)) - 2);
  for (let day = Math.min(LAST_DAY, wallDay(s.zone.toWall(atMs)) + 2); day >= firstDay; day--) {
    const at = firingOnDay(s, day);
    if (at === null || at > atMs) continue;
    const neighbour = firingOnDay(s, day - 1);
    const best = neighbour !== null && neighbour <= atMs && neighbour > at ? neighbour : at;
    return best >= floor ? best : null;
  }
  return null;
}
