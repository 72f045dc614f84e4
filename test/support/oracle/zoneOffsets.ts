// The reference oracle's view of a time zone: the zone's UTC offset as constant stretches of
// instants between two transitions, read from temporal-polyfill and nothing else. From those it
// answers the two questions the oracle asks, by their definitions:
//   * the wall clock at an instant: the instant plus the offset in force then;
//   * the instants at which a wall time occurs: every t with t + offset(t) = wall. A wall time
//     with none does not exist (a DST gap, a skipped date); with two (a DST overlap) the project
//     fires at the earlier one, so that is the one returned.
// Offsets are always less than a day (Temporal's limit), so every instant of a wall time lies
// within a day of it: only the stretches overlapping that two-day window can hold one.
import { Temporal } from 'temporal-polyfill';

const DAY = 86_400_000;

/** A stretch of instants [start, end) over which the zone's offset stays `offsetMs`. */
interface Stretch {
  readonly start: number;
  readonly end: number;
  readonly offsetMs: number;
}

/** A zone's offsets, fetched from Temporal one stretch at a time and kept in instant order. */
export class ZoneOffsets {
  private readonly stretches: Stretch[] = [];

  constructor(readonly timeZone: string) {}

  /** A stretch holding instant `t` (it may start later than the transition before `t`). */
  stretchAt(t: number): Stretch {
    const known = this.find(t);
    if (known !== undefined) return known;
    const at = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(this.timeZone);
    const next = at.getTimeZoneTransition('next');
    // The offset holds from t up to the next transition; where it began is not needed.
    return this.insert({
      start: t,
      end: next === null ? Number.POSITIVE_INFINITY : next.epochMilliseconds,
      offsetMs: at.offsetNanoseconds / 1e6,
    });
  }

  /** The wall clock at instant `t`, as milliseconds of a UTC-like local time line. */
  wallAt(t: number): number {
    return t + this.stretchAt(t).offsetMs;
  }

  /** The earliest instant whose wall clock reads `wall`, or null when that wall time does not exist. */
  earliestInstantOf(wall: number): number | null {
    let stretch = this.stretchAt(wall - DAY);
    for (;;) {
      const t = wall - stretch.offsetMs;
      if (t >= stretch.start && t < stretch.end) return t;
      if (stretch.end > wall + DAY) return null;
      stretch = this.stretchAt(stretch.end);
    }
  }

  /** The offset when one offset holds for every instant from `from` to `to` (wall = instant + it throughout), else null. */
  steadyOffset(from: number, to: number): number | null {
    const stretch = this.stretchAt(from);
    return stretch.end > to ? stretch.offsetMs : null;
  }

  private find(t: number): Stretch | undefined {
    let lo = 0;
    let hi = this.stretches.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = this.stretches[mid]!;
      if (t < s.start) hi = mid - 1;
      else if (t >= s.end) lo = mid + 1;
      else return s;
    }
    return undefined;
  }

  /**
   * Keeps a new stretch in instant order. Two stretches that end at the same transition are parts
   * of one and are merged; stretches ending at different transitions never overlap.
   */
  private insert(stretch: Stretch): Stretch {
    let i = this.stretches.length;
    while (i > 0 && this.stretches[i - 1]!.start > stretch.start) i--;
    const following = this.stretches[i];
    if (following !== undefined && following.end === stretch.end) {
      const merged = { ...following, start: stretch.start };
      this.stretches[i] = merged;
      return merged;
    }
    this.stretches.splice(i, 0, stretch);
    return stretch;
  }
}

const zones = new Map<string, ZoneOffsets>();

/** The (shared, growing) offsets of a zone. */
export function zoneOffsets(timeZone: string): ZoneOffsets {
  let zone = zones.get(timeZone);
  if (zone === undefined) {
    zone = new ZoneOffsets(timeZone);
    zones.set(timeZone, zone);
  }
  return zone;
}
