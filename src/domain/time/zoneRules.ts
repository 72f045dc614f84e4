// The UTC offsets of one IANA zone as a cache of constant-offset segments, and the resolution
// of local wall-clock times to instants under the project's DST rule (docs/selectors.md): a wall time that
// does not exist is a gap (the caller skips or rejects it), one that exists twice resolves to
// its earlier instant. Segments come from temporal-polyfill's transition search and are cached
// per zone, so after warm-up an offset or a resolution is a binary search.
//
// "Wall ms" throughout the project means local date-time fields encoded as if they were UTC:
// `Date.UTC(year, month - 1, day, hour, minute, second, ms)` of the local reading. For an instant
// `t` in a segment with offset `o`, its wall ms is `t + o`.
import { Temporal } from 'temporal-polyfill';

/** A maximal run of instants `[start, end)` sharing one UTC offset (ms). */
export interface OffsetSegment {
  /** First instant of the segment (ms), or -Infinity. */
  readonly start: number;
  /** First instant after the segment (ms), or +Infinity. */
  readonly end: number;
  /** Offset from UTC in ms (wall = instant + offset); may be a non-whole minute (LMT). */
  readonly offset: number;
}

/** How a local wall time maps to instants in a zone. */
export type WallResolution =
  | { readonly kind: 'exact'; readonly instant: number }
  | { readonly kind: 'gap' }
  | { readonly kind: 'overlap'; readonly earlier: number; readonly later: number };

/** Offsets never exceed this magnitude, so all instants of one wall time lie within ±this. */
const MAX_OFFSET_MS = 18 * 3_600_000;

/** The offset rules of one zone, with a per-zone segment cache. */
export class ZoneRules {
  readonly id: string;
  /** Known segments, sorted by start, non-overlapping. */
  private readonly segments: OffsetSegment[] = [];

  constructor(id: string) {
    this.id = id;
  }

  /** The constant-offset segment holding the instant `epochMs`. */
  segmentAt(epochMs: number): OffsetSegment {
    const segments = this.segments;
    let lo = 0;
    let hi = segments.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const seg = segments[mid]!;
      if (epochMs < seg.start) hi = mid - 1;
      else if (epochMs >= seg.end) lo = mid + 1;
      else return seg;
    }
    const seg = this.computeSegment(epochMs);
    segments.splice(lo, 0, seg);
    return seg;
  }

  /** Offset from UTC (ms) in effect at `epochMs`. */
  offsetAt(epochMs: number): number {
    return this.segmentAt(epochMs).offset;
  }

  /** The local wall reading of an instant, as wall ms. */
  toWall(epochMs: number): number {
    return epochMs + this.segmentAt(epochMs).offset;
  }

  /**
   * The instants whose local reading is `wallMs`: none (a gap, or a skipped calendar date),
   * one, or two (an overlap; the caller fires at `earlier`).
   */
  resolveWall(wallMs: number): WallResolution {
    const first = this.segmentAt(wallMs - MAX_OFFSET_MS);
    if (first.end > wallMs + MAX_OFFSET_MS) return { kind: 'exact', instant: wallMs - first.offset };
    let earlier: number | undefined;
    let later: number | undefined;
    for (let seg = first; seg.start <= wallMs + MAX_OFFSET_MS; seg = this.segmentAt(seg.end)) {
      const instant = wallMs - seg.offset;
      if (instant >= seg.start && instant < seg.end) {
        if (earlier === undefined || instant < earlier) {
          later = later ?? earlier;
          earlier = instant;
        } else if (later === undefined || instant > later) later = instant;
      }
      if (seg.end === Number.POSITIVE_INFINITY) break;
    }
    if (earlier === undefined) return { kind: 'gap' };
    if (later === undefined || later === earlier) return { kind: 'exact', instant: earlier };
    return { kind: 'overlap', earlier, later };
  }

  /** The one instant at which a wall time fires (overlap → earlier), or `null` in a gap. */
  firingInstant(wallMs: number): number | null {
    const r = this.resolveWall(wallMs);
    return r.kind === 'gap' ? null : r.kind === 'exact' ? r.instant : r.earlier;
  }

  private computeSegment(epochMs: number): OffsetSegment {
    const zdt = Temporal.Instant.fromEpochMilliseconds(clampToTemporal(epochMs)).toZonedDateTimeISO(this.id);
    const offset = zdt.offsetNanoseconds / 1e6;
    if (this.id === 'UTC') return { start: Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY, offset };
    const prev = zdt.getTimeZoneTransition('previous');
    const next = zdt.getTimeZoneTransition('next');
    // Temporal's "previous" is strictly before the instant, so an instant that is itself a
    // transition starts its own segment.
    const start = isTransitionInstant(zdt, offset) ? epochMs : prev === null ? Number.NEGATIVE_INFINITY : prev.epochMilliseconds;
    const end = next === null ? Number.POSITIVE_INFINITY : next.epochMilliseconds;
    return { start, end, offset };
  }
}

/** True when the offset just before `zdt` differs from `offset` (zdt is a transition instant). */
function isTransitionInstant(zdt: Temporal.ZonedDateTime, offset: number): boolean {
  const before = zdt.subtract({ nanoseconds: 1 });
  return before.offsetNanoseconds / 1e6 !== offset;
}

/** Temporal's instant range is ±10^8 days; the project never needs more than years 0000–10000. */
const TEMPORAL_LIMIT_MS = 8.64e15;
const clampToTemporal = (ms: number): number => Math.max(-TEMPORAL_LIMIT_MS, Math.min(TEMPORAL_LIMIT_MS, ms));

const cache = new Map<string, ZoneRules>();

/**
 * The cached rules of a zone id. The id must already be valid (see `normalizeTimeZone`);
 * Temporal throws a RangeError otherwise.
 */
export function zoneRules(id: string): ZoneRules {
  let rules = cache.get(id);
  if (rules === undefined) {
    rules = new ZoneRules(id);
    cache.set(id, rules);
  }
  return rules;
}
