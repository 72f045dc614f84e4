// The reference oracle's one search: the first instant strictly after `after` at which a
// wall-clock rule (daily, weekly or cron) fires, found by brute force over local days. For each
// local date from shortly before `after`, it asks whether the rule's day matches (plain calendar
// arithmetic on the wall clock), and then takes every time of day the rule fires at that date —
// each as a wall time, resolved to the earliest instant that shows it (a wall time that does not
// exist is skipped for that date; one shown twice fires once, at the earlier instant). The answer
// is the smallest such instant after `after`, looked for over the dates up to two days past the
// first date that has one (local dates overlap only by the size of an offset change, which is
// less than a day). Nothing here comes from the project's engine; the zone data comes from
// temporal-polyfill (see zoneOffsets.ts).
import { Temporal } from 'temporal-polyfill';
import { type CronSets, cronDateMatches, cronSets } from './cronSets.ts';
import { zoneOffsets } from './zoneOffsets.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The last instant a target may have: the end of year 9999 (UTC). */
export const LAST_FIRING_MS = Date.parse('9999-12-31T23:59:59.999Z');

/** A wall-clock rule as the project stores it (weekdays 1 = Monday … 7 = Sunday). */
export type ReferenceRule =
  | { readonly kind: 'daily'; readonly time: string; readonly timeZone: string }
  | { readonly kind: 'weekly'; readonly time: string; readonly timeZone: string; readonly weekdays: readonly number[] }
  | { readonly kind: 'cron'; readonly expression: string; readonly timeZone: string };

/** Which local dates a rule fires on, and at which times of day (milliseconds after local midnight, ascending). */
interface DayPlan {
  readonly dateMatches: (wallMidnight: number) => boolean;
  readonly timesOfDay: readonly number[];
}

/** Milliseconds after midnight of `HH:mm[:ss[.sss]]`. */
function timeOfDay(time: string): number {
  const t = Temporal.PlainTime.from(time);
  return t.hour * HOUR + t.minute * MINUTE + t.second * 1000 + t.millisecond;
}

/** Calendar fields of a wall-clock reading (the wall time line is read like UTC). */
function dateFields(wall: number): { month: number; day: number; weekday: number } {
  const d = new Date(wall);
  return { month: d.getUTCMonth() + 1, day: d.getUTCDate(), weekday: d.getUTCDay() };
}

function cronPlan(sets: CronSets): DayPlan {
  const timesOfDay: number[] = [];
  for (const hour of [...sets.hours].sort((a, b) => a - b)) {
    for (const minute of [...sets.minutes].sort((a, b) => a - b)) timesOfDay.push(hour * HOUR + minute * MINUTE);
  }
  return {
    timesOfDay,
    dateMatches: (wall) => {
      const { month, day, weekday } = dateFields(wall);
      return cronDateMatches(sets, month, day, weekday);
    },
  };
}

function planOf(rule: ReferenceRule): DayPlan {
  switch (rule.kind) {
    case 'daily':
      return { timesOfDay: [timeOfDay(rule.time)], dateMatches: () => true };
    case 'weekly': {
      const isoWeekdays = new Set(rule.weekdays);
      // Date's getUTCDay is 0 = Sunday; the rule's weekdays are ISO (7 = Sunday).
      return { timesOfDay: [timeOfDay(rule.time)], dateMatches: (wall) => isoWeekdays.has(dateFields(wall).weekday || 7) };
    }
    case 'cron':
      return cronPlan(cronSets(rule.expression));
  }
}

/**
 * The first instant strictly after `after` (epoch ms) at which `rule` fires, or null when it
 * fires at no instant up to the end of year 9999.
 */
export function nextFiring(rule: ReferenceRule, after: number): number | null {
  const zone = zoneOffsets(rule.timeZone);
  const plan = planOf(rule);
  if (plan.timesOfDay.length === 0) return null;
  // A firing after `after` has a wall clock at least `after`'s minus a day (offsets change by less).
  const firstDay = Math.floor(zone.wallAt(after) / DAY) - 2;
  const lastDay = Math.floor((LAST_FIRING_MS + DAY) / DAY) + 1;
  let best: number | null = null;
  let stopAfterDay = lastDay;
  for (let day = firstDay; day <= stopAfterDay; day++) {
    const midnight = day * DAY;
    if (!plan.dateMatches(midnight)) continue;
    const found = firstFiringOfDate(zone, plan.timesOfDay, midnight, after);
    if (found === null) continue;
    if (best === null || found < best) best = found;
    if (stopAfterDay === lastDay) stopAfterDay = Math.min(lastDay, day + 2);
  }
  return best !== null && best <= LAST_FIRING_MS ? best : null;
}

/** The earliest instant after `after` among the rule's times on the local date starting at wall `midnight`. */
function firstFiringOfDate(
  zone: ReturnType<typeof zoneOffsets>,
  timesOfDay: readonly number[],
  midnight: number,
  after: number,
): number | null {
  // When one offset holds for every instant that can show this date, wall and instant move
  // together: the first time of day past `after` is the answer.
  const steady = zone.steadyOffset(midnight - 2 * DAY, midnight + 2 * DAY);
  if (steady !== null) {
    if (midnight + DAY - steady <= after) return null;
    for (const time of timesOfDay) if (midnight + time - steady > after) return midnight + time - steady;
    return null;
  }
  // Near an offset change, resolve every time of day on its own and keep the smallest.
  let best: number | null = null;
  for (const time of timesOfDay) {
    const at = zone.earliestInstantOf(midnight + time);
    if (at !== null && at > after && (best === null || at < best)) best = at;
  }
  return best;
}

/** `nextFiring` as an ISO instant string (what views and receipts carry), or null. */
export function nextFiringIso(rule: ReferenceRule, after: number | string): string | null {
  const ms = nextFiring(rule, typeof after === 'number' ? after : Date.parse(after));
  return ms === null ? null : new Date(ms).toISOString();
}
