// Firing instants of a cron expression in a time zone (docs/selectors.md wall-clock rules): the next one
// after an instant, and the latest one inside a window. The zone's timeline is taken one
// constant-offset segment at a time; inside a segment wall time is instant + offset, so the
// wall-clock field search finds candidates directly. A candidate fires only if it is the earlier
// instant of its wall time (a repeated wall time fires once); wall times inside a gap are never
// produced, because no segment reaches them. A rule that could match but whose every match falls
// into gaps is given up on after one whole 400-year cycle of the periodic era (see below), so even
// that search ends in well under a second.
import { DAY_MS, MAX_INSTANT_MS, MIN_INSTANT_MS, MINUTE_MS } from '../instant.ts';
import type { OffsetSegment, ZoneRules } from '../zoneRules.ts';
import { cronCanMatch } from './match.ts';
import type { CronSpec } from './spec.ts';
import { firstMatchingWall, lastMatchingWall } from './wallSearch.ts';

/** 400 Gregorian years: calendar dates, weekdays and rule-based DST all repeat with this period. */
const GREGORIAN_CYCLE_MS = 146_097 * DAY_MS;
/**
 * From here on every zone's offsets follow fixed yearly rules (the time-zone data lists
 * irregular transitions only up to the 2080s), so the firings of an expression repeat every
 * Gregorian cycle: a cycle without a firing means there is none later.
 */
const PERIODIC_FROM_MS = Date.UTC(2100, 0, 1);
/** Two instants with the same wall time are at most this far apart (offsets stay within ±18 h). */
const MAX_REPEAT_DISTANCE_MS = 36 * 3_600_000;

/**
 * The first firing instant strictly after `afterMs`, or `null` when there is none at or before
 * 9999-12-31T23:59:59.999Z. Impossible day/month combinations return `null` at once.
 */
export function nextCronAfter(spec: CronSpec, zone: ZoneRules, afterMs: number): number | null {
  if (Number.isNaN(afterMs) || !cronCanMatch(spec)) return null;
  let instant = Math.max(Math.floor(afterMs) + 1, MIN_INSTANT_MS);
  const horizon = Math.min(MAX_INSTANT_MS + 1, Math.max(instant, PERIODIC_FROM_MS) + GREGORIAN_CYCLE_MS);
  while (instant < horizon) {
    const segment = zone.segmentAt(instant);
    const offset = segment.offset;
    const limitWall = Math.min(segment.end, horizon) + offset;
    let fromWall = instant + offset;
    for (;;) {
      const wall = firstMatchingWall(spec, fromWall, limitWall);
      if (Number.isNaN(wall)) break;
      if (fires(zone, segment, wall)) return wall - offset;
      fromWall = wall + MINUTE_MS;
    }
    instant = segment.end;
  }
  return null;
}

/**
 * The latest firing instant `t` with `notBeforeMs ≤ t ≤ atMs`, or `null` when none exists
 * (catch-up uses it for the latest missed occurrence).
 */
export function latestCronAtOrBefore(spec: CronSpec, zone: ZoneRules, atMs: number, notBeforeMs: number): number | null {
  if (Number.isNaN(atMs) || Number.isNaN(notBeforeMs) || !cronCanMatch(spec)) return null;
  const floor = Math.max(Math.ceil(notBeforeMs), MIN_INSTANT_MS);
  const top = Math.min(Math.floor(atMs), MAX_INSTANT_MS);
  // Below `top - cycle` inside the periodic era every firing would repeat within the last cycle.
  const periodicFloor = top - GREGORIAN_CYCLE_MS > PERIODIC_FROM_MS ? top - GREGORIAN_CYCLE_MS : Number.NEGATIVE_INFINITY;
  let instant = top;
  while (instant >= floor) {
    if (instant < periodicFloor && instant >= PERIODIC_FROM_MS) {
      instant = PERIODIC_FROM_MS - 1;
      continue;
    }
    const segment = zone.segmentAt(instant);
    const offset = segment.offset;
    const floorWall = Math.max(segment.start, floor) + offset;
    let toWall = instant + offset;
    for (;;) {
      const wall = lastMatchingWall(spec, toWall, floorWall);
      if (Number.isNaN(wall)) break;
      if (fires(zone, segment, wall)) return wall - offset;
      toWall = wall - MINUTE_MS;
    }
    instant = segment.start - 1;
  }
  return null;
}

/**
 * True when the wall time `wall`, reached inside `segment`, fires there: no earlier instant shows
 * the same wall time. Only a segment's first hours can repeat an earlier segment's wall times.
 */
function fires(zone: ZoneRules, segment: OffsetSegment, wall: number): boolean {
  const instant = wall - segment.offset;
  return instant - segment.start >= MAX_REPEAT_DISTANCE_MS || zone.firingInstant(wall) === instant;
}
