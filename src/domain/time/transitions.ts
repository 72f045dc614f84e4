// Offset transitions of a zone as values: where the offset changes between two instants, and
// the wall-clock interval a forward jump skips (a gap) or a backward jump repeats (an overlap).
// Built on the segment cache of zoneRules.ts; used to explain gaps in messages and previews.
import { formatWallDate, formatWallTime } from './calendar.ts';
import type { ZoneRules } from './zoneRules.ts';

/** One change of UTC offset at instant `at`. */
export interface Transition {
  readonly at: number;
  /** Offset (ms) just before `at`. */
  readonly before: number;
  /** Offset (ms) from `at` on. */
  readonly after: number;
}

/** The wall readings `[startWall, endWall)` a transition skips (offset grows) or repeats (offset shrinks). */
export const transitionWalls = (t: Transition): { startWall: number; endWall: number } => ({
  startWall: t.at + Math.min(t.before, t.after),
  endWall: t.at + Math.max(t.before, t.after),
});

/** True when the transition moves the clock forward, skipping wall readings. */
export const isGap = (t: Transition): boolean => t.after > t.before;

/** Transitions with `fromMs < at <= toMs`, in order. */
export function transitionsBetween(zone: ZoneRules, fromMs: number, toMs: number): Transition[] {
  const out: Transition[] = [];
  let seg = zone.segmentAt(fromMs);
  while (seg.end <= toMs && Number.isFinite(seg.end)) {
    const next = zone.segmentAt(seg.end);
    if (next.offset !== seg.offset) out.push({ at: seg.end, before: seg.offset, after: next.offset });
    seg = next;
  }
  return out;
}

/**
 * How the clock moves at a transition, for messages: "the clock jumps forward from 02:00 to
 * 03:00" or "the clock falls back from 02:00 to 01:00" (with dates when they differ).
 */
export function describeTransition(t: Transition): string {
  const from = t.at + t.before;
  const to = t.at + t.after;
  const sameDate = formatWallDate(from) === formatWallDate(to);
  const show = (wall: number) => (sameDate ? formatWallTime(wall) : `${formatWallDate(wall)} ${formatWallTime(wall)}`);
  return `the clock ${isGap(t) ? 'jumps forward' : 'falls back'} from ${show(from)} to ${show(to)}`;
}

/** Offsets never exceed ±18 h, so every transition concerning a wall reading lies within this of it. */
const SEARCH_MS = 36 * 3_600_000;

/** The forward transition whose skipped wall interval holds `wallMs`, or `null` when the reading exists. */
export function gapHolding(zone: ZoneRules, wallMs: number): Transition | null {
  for (const t of transitionsBetween(zone, wallMs - SEARCH_MS, wallMs + SEARCH_MS)) {
    if (!isGap(t)) continue;
    const { startWall, endWall } = transitionWalls(t);
    if (wallMs >= startWall && wallMs < endWall) return t;
  }
  return null;
}
