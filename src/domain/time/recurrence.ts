// Targets of every rule kind, in one place: the first target at creation, the next target after
// a delivery, and the latest missed occurrence that a delivery reports. One-shots (`after`, `at`)
// have a single target; `every` is a fixed-rate grid anchored at the committed target; daily and
// weekly walk local dates (wallClock.ts); cron is evaluated by the cron engine. Only targets in
// years 0001–9999 exist: `null` means "no (further) target", never an exception.

import type { Rule, WallClockRule } from '../tasks/types.ts';
import { type CronSpec, latestCronAtOrBefore, nextCronAfter, parseCron } from './cron/index.ts';
import { MAX_INSTANT_MS } from './instant.ts';
import { latestLocalTimeAtOrBefore, localTimeSchedule, nextLocalTimeAfter } from './wallClock.ts';
import { type ZoneRules, zoneRules } from './zoneRules.ts';

/** A wall-clock rule (daily, weekly, cron) prepared for repeated evaluation in its zone. */
export interface WallClockFirings {
  readonly zone: ZoneRules;
  /** The first firing strictly after `afterMs`, or `null` when none is in range. */
  next(afterMs: number): number | null;
  /** The latest firing in `[notBeforeMs, atMs]`, or `null`. */
  latest(atMs: number, notBeforeMs: number): number | null;
}

/** Prepares a stored daily, weekly or cron rule for evaluation. */
export function wallClockFirings(rule: WallClockRule): WallClockFirings {
  if (rule.kind === 'cron') return cronFirings(parseCron(rule.expression, 'expression'), zoneRules(rule.timeZone));
  const schedule = localTimeSchedule(rule);
  return {
    zone: schedule.zone,
    next: (afterMs) => nextLocalTimeAfter(schedule, afterMs),
    latest: (atMs, notBeforeMs) => latestLocalTimeAtOrBefore(schedule, atMs, notBeforeMs),
  };
}

/** Firings of a parsed cron expression in a zone. */
export function cronFirings(spec: CronSpec, zone: ZoneRules): WallClockFirings {
  return {
    zone,
    next: (afterMs) => nextCronAfter(spec, zone, afterMs),
    latest: (atMs, notBeforeMs) => latestCronAtOrBefore(spec, zone, atMs, notBeforeMs),
  };
}

const inRangeOrNull = (ms: number): number | null => (ms <= MAX_INSTANT_MS ? ms : null);

/**
 * The target a rule gets when it is created (or re-anchored by an update) at `nowMs`:
 * `after` now + delay, `at` the instant, `every` now + interval, daily/weekly/cron the first
 * firing strictly after now. `null` when that target would lie beyond 9999-12-31T23:59:59.999Z.
 */
export function firstTarget(rule: Rule, nowMs: number): number | null {
  switch (rule.kind) {
    case 'after':
      return inRangeOrNull(nowMs + rule.afterSeconds * 1000);
    case 'at':
      return inRangeOrNull(rule.at);
    case 'every':
      return inRangeOrNull(nowMs + rule.everySeconds * 1000);
    default:
      return wallClockFirings(rule).next(nowMs);
  }
}

/**
 * The target after a delivery of the committed target `committedMs`: for `every` the first point
 * of the grid `committedMs + k × interval` strictly after now; for daily/weekly/cron the first
 * firing strictly after now. Never at or before the committed target, even if the clock moved
 * backwards. `null` for one-shots and when no further target exists before year 10000 (the task
 * then becomes inactive).
 */
export function nextTargetAfter(rule: Rule, committedMs: number, nowMs: number): number | null {
  const after = Math.max(committedMs, nowMs);
  switch (rule.kind) {
    case 'after':
    case 'at':
      return null;
    case 'every': {
      const step = rule.everySeconds * 1000;
      return inRangeOrNull(committedMs + (Math.floor((after - committedMs) / step) + 1) * step);
    }
    default:
      return wallClockFirings(rule).next(after);
  }
}

/**
 * The latest occurrence due at `nowMs` for a task whose committed target is `committedMs` (the
 * one occurrence a recurring task reports when several were missed): for `every` the last grid
 * point at or before now, for daily/weekly/cron the latest firing in `[committedMs, nowMs]`.
 * A committed target is never recomputed: when nothing later is found (one-shots, a clock that
 * moved backwards, time-zone data that changed) the answer is `committedMs` itself.
 */
export function latestOccurrence(rule: Rule, committedMs: number, nowMs: number): number {
  if (nowMs <= committedMs) return committedMs;
  switch (rule.kind) {
    case 'after':
    case 'at':
      return committedMs;
    case 'every': {
      const step = rule.everySeconds * 1000;
      return committedMs + Math.floor((nowMs - committedMs) / step) * step;
    }
    default: {
      const latest = wallClockFirings(rule).latest(nowMs, committedMs);
      return latest !== null && latest > committedMs ? latest : committedMs;
    }
  }
}

/** Occurrences counted one by one for a wall-clock rule before the count stops (docs/delivery.md). */
export const MISSED_COUNT_LIMIT = 10_000;

/**
 * How many occurrences lie in `[fromMs, toMs)` when `fromMs` is the committed target (itself an
 * occurrence): for `every` by arithmetic on the grid, for daily/weekly/cron by the engine's jumps
 * from one firing to the next, stopping at {@link MISSED_COUNT_LIMIT}. 0 when `toMs` is not after `fromMs`.
 */
export function countOccurrences(rule: Rule, fromMs: number, toMs: number): number {
  if (toMs <= fromMs) return 0;
  switch (rule.kind) {
    case 'after':
    case 'at':
      return 1;
    case 'every':
      return Math.ceil((toMs - fromMs) / (rule.everySeconds * 1000));
    default: {
      const firings = wallClockFirings(rule);
      let count = 1;
      for (let t = firings.next(fromMs); t !== null && t < toMs && count < MISSED_COUNT_LIMIT; t = firings.next(t)) count++;
      return count;
    }
  }
}
