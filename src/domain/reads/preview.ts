// Occurrence preview: the next targets of a rule from a given instant, each with its UTC
// instant, its local reading and offset in the rule's zone, and notes that explain the DST rule
// at work — dates on which the local time was skipped because the clock jumped over it (before
// this occurrence), and occurrences whose local time exists twice (fired at the earlier
// instant). `after`, `at` and `every` are shown in UTC. The list stops early at the end of the
// supported range (9999-12-31T23:59:59.999Z).
import { listWords } from '../args/argShape.ts';
import type { Rule, WallClockRule } from '../tasks/types.ts';
import { formatOffset, formatWallDate, formatWallDateTime, formatWallTime, wallDay } from '../time/calendar.ts';
import { parseCron } from '../time/cron/index.ts';
import { DAY_MS, formatInstant, MAX_INSTANT_MS } from '../time/instant.ts';
import { cronFirings } from '../time/recurrence.ts';
import { describeTransition, isGap, type Transition, transitionsBetween, transitionWalls } from '../time/transitions.ts';
import { firesOnDay, localTimeSchedule, nextLocalTimeAfter, wallOnDay } from '../time/wallClock.ts';
import { type ZoneRules, zoneRules } from '../time/zoneRules.ts';

/** One previewed occurrence. */
export interface PreviewOccurrence {
  /** Canonical UTC instant. */
  readonly at: string;
  /** Local reading in the rule's zone (UTC for after/at/every), `YYYY-MM-DDTHH:mm:ss[.sss]`. */
  readonly local: string;
  /** UTC offset of that reading, `±HH:MM`. */
  readonly offset: string;
  /** Skipped local times before this occurrence and overlap resolution of this one. */
  readonly notes: string[];
}

/** The first `count` occurrences of `rule` strictly after `fromMs` (as if created at `fromMs`). */
export function previewOccurrences(rule: Rule, fromMs: number, count: number): PreviewOccurrence[] {
  const out: PreviewOccurrence[] = [];
  if (count <= 0) return out;
  switch (rule.kind) {
    case 'after':
    case 'at': {
      const at = rule.kind === 'at' ? rule.at : fromMs + rule.afterSeconds * 1000;
      if (at > fromMs && at <= MAX_INSTANT_MS) out.push(utcOccurrence(at));
      return out;
    }
    case 'every': {
      const step = rule.everySeconds * 1000;
      for (let at = fromMs + step; out.length < count && at <= MAX_INSTANT_MS; at += step) out.push(utcOccurrence(at));
      return out;
    }
    default: {
      const walker = wallClockWalker(rule);
      for (let prev = fromMs, at = walker.next(prev); at !== null && out.length < count; prev = at, at = walker.next(at)) {
        const notes = [...skippedNotes(walker, prev, at), ...overlapNotes(walker.zone, at)];
        const wall = walker.zone.toWall(at);
        out.push({ at: formatInstant(at), local: formatWallDateTime(wall), offset: formatOffset(wall - at), notes });
      }
      return out;
    }
  }
}

const utcOccurrence = (at: number): PreviewOccurrence => ({
  at: formatInstant(at),
  local: formatWallDateTime(at),
  offset: '+00:00',
  notes: [],
});

/** A wall-clock rule's firings, plus the wall readings it would match in an interval regardless of existence. */
interface WallClockWalker {
  readonly zone: ZoneRules;
  next(afterMs: number): number | null;
  wallsIn(startWall: number, endWall: number): number[];
}

/** Caps the skipped readings listed for one gap (a 24-hour gap of `* * * * *` has 1440). */
const MAX_SKIPPED = 2000;

function wallClockWalker(rule: WallClockRule): WallClockWalker {
  if (rule.kind === 'cron') {
    const spec = parseCron(rule.expression, 'expression');
    const zone = zoneRules(rule.timeZone);
    const inZone = cronFirings(spec, zone);
    // In UTC every wall reading exists exactly once, so its firings are the matching readings.
    const onWall = cronFirings(spec, zoneRules('UTC'));
    return {
      zone,
      next: inZone.next,
      wallsIn: (startWall, endWall) => {
        const walls: number[] = [];
        for (let w = onWall.next(startWall - 1); w !== null && w < endWall && walls.length < MAX_SKIPPED; w = onWall.next(w)) walls.push(w);
        return walls;
      },
    };
  }
  const schedule = localTimeSchedule(rule);
  return {
    zone: schedule.zone,
    next: (afterMs) => nextLocalTimeAfter(schedule, afterMs),
    wallsIn: (startWall, endWall) => {
      const walls: number[] = [];
      for (let day = wallDay(startWall); day * DAY_MS < endWall; day++) {
        const wall = wallOnDay(schedule, day);
        if (wall >= startWall && wall < endWall && firesOnDay(schedule, day)) walls.push(wall);
      }
      return walls;
    },
  };
}

/** Notes for local readings the rule matched but the clock skipped, in `(prevMs, atMs]`. */
function skippedNotes(walker: WallClockWalker, prevMs: number, atMs: number): string[] {
  const notes: string[] = [];
  for (const transition of transitionsBetween(walker.zone, prevMs, atMs)) {
    if (!isGap(transition)) continue;
    const { startWall, endWall } = transitionWalls(transition);
    const byDate = new Map<string, number[]>();
    for (const wall of walker.wallsIn(startWall, endWall)) {
      const date = formatWallDate(wall);
      byDate.set(date, [...(byDate.get(date) ?? []), wall]);
    }
    for (const [date, walls] of byDate) notes.push(skippedNote(date, walls, transition));
  }
  return notes;
}

function skippedNote(date: string, walls: readonly number[], transition: Transition): string {
  const times = walls.map(formatWallTime);
  const why = `(${describeTransition(transition)}); skipped`;
  if (times.length === 1) return `${times[0]} does not exist on ${date} ${why}`;
  if (times.length <= 4) return `${listWords(times)} do not exist on ${date} ${why}`;
  return `${times.length} matching times from ${times[0]} to ${times[times.length - 1]} do not exist on ${date} ${why}`;
}

function overlapNotes(zone: ZoneRules, atMs: number): string[] {
  const wall = zone.toWall(atMs);
  if (zone.resolveWall(wall).kind !== 'overlap') return [];
  return [`${formatWallTime(wall)} occurs twice on ${formatWallDate(wall)}; fires at the earlier instant (${formatOffset(wall - atMs)})`];
}
