// The UTC offsets of one IANA zone as a cache of constant-offset segments, and the resolution
// of local wall-clock times to instants under the project's DST rule (docs/selectors.md): a wall time that
// does not exist is a gap (the caller skips or rejects it), one that exists twice resolves to
// its earlier instant. After warm-up an offset or a resolution is a binary search.
//
// Segments are built from Intl readings on temporal-polyfill's own sampling grid (intlOffsets.ts):
// readings every period P (19 days in most zones) at multiples of P since 1970; where two
// neighbouring readings differ, the transition between them is found by the polyfill's bisection.
// The offsets are therefore exactly Temporal's. A segment is found by walking that grid outward
// from the instant, but never past the block of BLOCK_PERIODS periods holding it, so a first use
// costs a bounded number of readings however long the zone has kept its offset. Where a segment
// stops depends only on the zone and the instant, never on what was asked before, so cached
// segments never overlap and the segment after one always starts at its end.
//
// "Wall ms" throughout the project means local date-time fields encoded as if they were UTC:
// `Date.UTC(year, month - 1, day, hour, minute, second, ms)` of the local reading. For an instant
// `t` in a segment with offset `o`, its wall ms is `t + o`.
import { FIRST_READ_SEC, LAST_READ_SEC, type OffsetReader, offsetReader, samplePeriodSec } from './intlOffsets.ts';

/**
 * A run of instants `[start, end)` sharing one UTC offset (ms). A bound that is not a transition
 * (the offset is the same on both sides) is a block edge; users walk on to the next segment.
 */
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

/**
 * Periods a segment may span at most: bounds the readings of a first use (a zone without
 * transitions costs BLOCK_PERIODS + 1 readings, about ten months of 19-day periods) while keeping
 * the segments of a walk over years few.
 */
const BLOCK_PERIODS = 16;

/** The offset rules of one zone, with a per-zone segment cache. */
export class ZoneRules {
  readonly id: string;
  /** Known segments, sorted by start, non-overlapping. */
  private readonly segments: OffsetSegment[] = [];
  /** Seconds between grid readings. */
  private readonly period: number;
  /** The last grid point at or before the first read second, and the first at or after the last. */
  private readonly first: number;
  private readonly last: number;
  /** Offset (s) read at grid point k·period, by k. */
  private readonly readings = new Map<number, number>();
  /** Transition second inside period k (between grid points k and k + 1), by k. */
  private readonly transitions = new Map<number, number>();
  private reader: OffsetReader | undefined;

  constructor(id: string) {
    this.id = id;
    this.period = samplePeriodSec(id);
    this.first = Math.floor(FIRST_READ_SEC / this.period);
    this.last = Math.ceil(LAST_READ_SEC / this.period);
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

  /**
   * The constant run holding `epochMs` within its block: from the grid period holding it, outward
   * one period at a time while the readings agree, to the transition bisected inside the first
   * period whose readings differ, or to the block edge.
   */
  private computeSegment(epochMs: number): OffsetSegment {
    if (this.id === 'UTC') return { start: Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY, offset: 0 };
    const sec = Math.floor(epochMs / 1000);
    // Every grid point at or below `first` reads alike, and so does every one at or above `last`:
    // they stand for the two unbounded ends of the timeline.
    const k = Math.min(Math.max(Math.floor(sec / this.period), this.first), this.last);
    const blockStart = Math.floor(k / BLOCK_PERIODS) * BLOCK_PERIODS;
    const blockEnd = blockStart + BLOCK_PERIODS;
    const here = this.reading(k);
    const next = this.reading(k + 1);
    if (here === next) return { start: this.runStart(k, blockStart), end: this.runEnd(k + 1, blockEnd), offset: here * 1000 };
    const transition = this.transitionIn(k, next);
    return sec < transition
      ? { start: this.runStart(k, blockStart), end: transition * 1000, offset: here * 1000 }
      : { start: transition * 1000, end: this.runEnd(k + 1, blockEnd), offset: next * 1000 };
  }

  /** Where the offset read at grid point k began (ms), looking back no further than grid point `floor`. */
  private runStart(k: number, floor: number): number {
    const offset = this.reading(k);
    for (let j = k; ; j--) {
      if (j <= this.first) return Number.NEGATIVE_INFINITY;
      if (j === floor) return j * this.period * 1000;
      const earlier = this.reading(j - 1);
      if (earlier !== offset) return this.transitionIn(j - 1, offset) * 1000;
    }
  }

  /** Where the offset read at grid point k ends (ms), looking on no further than grid point `ceiling`. */
  private runEnd(k: number, ceiling: number): number {
    const offset = this.reading(k);
    for (let j = k; ; j++) {
      // The block holding `last` holds the unbounded end; a block ending at `last` stops there.
      if (j >= this.last && this.last < ceiling) return Number.POSITIVE_INFINITY;
      if (j === ceiling) return j * this.period * 1000;
      const later = this.reading(j + 1);
      if (later !== offset) return this.transitionIn(j, later) * 1000;
    }
  }

  /** The offset (s) read at grid point k. */
  private reading(k: number): number {
    let offset = this.readings.get(k);
    if (offset === undefined) {
      this.reader ??= offsetReader(this.id);
      offset = this.reader(clampRead(k * this.period));
      this.readings.set(k, offset);
    }
    return offset;
  }

  /**
   * The first second of period k that reads `after` (the reading at its end), by temporal-polyfill's
   * bisection step for step, so that even a period holding two transitions splits where Temporal's does.
   */
  private transitionIn(k: number, after: number): number {
    let at = this.transitions.get(k);
    if (at === undefined) {
      this.reader ??= offsetReader(this.id);
      let lo = clampRead(k * this.period);
      let hi = clampRead((k + 1) * this.period);
      while (hi > lo) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (this.reader(mid) === after) hi = mid;
        else lo = mid + 1;
      }
      at = lo;
      this.transitions.set(k, at);
    }
    return at;
  }
}

const clampRead = (sec: number): number => Math.max(FIRST_READ_SEC, Math.min(LAST_READ_SEC, sec));

const cache = new Map<string, ZoneRules>();

/**
 * The cached rules of a zone id. The id must already be valid (see `normalizeTimeZone`);
 * Intl throws a RangeError otherwise, at the first reading.
 */
export function zoneRules(id: string): ZoneRules {
  let rules = cache.get(id);
  if (rules === undefined) {
    rules = new ZoneRules(id);
    cache.set(id, rules);
  }
  return rules;
}
