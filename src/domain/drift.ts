// Time-zone data drift: committed targets of wall-clock tasks (daily, weekly, cron) that the rule
// no longer yields under the time-zone data in use. A committed target is never recomputed, so
// when zone rules change (a country drops or moves DST) a target written under older data can sit
// an hour off. The report is pure and cheap: per task one backward jump of the recurrence engine
// (the latest firing at or before the target) and, only for a drifted target, one forward jump
// (the next firing after it) — never a walk over minutes. A target at the later instant of a
// repeated wall time is drifted: the rule fires only at the earlier one.
import { formatOffset, formatWallDateTime } from './calendar.ts';
import { formatInstant, MIN_INSTANT_MS } from './instant.ts';
import { ruleFromRecord } from './records.ts';
import { type WallClockFirings, wallClockFirings } from './recurrence.ts';
import type { TaskRow, WallClockRule } from './types.ts';

/** One task whose committed target is not an occurrence of its rule under the current data. */
export interface DriftEntry {
  readonly sessionId: string;
  readonly id: string;
  /** The committed target (canonical UTC). */
  readonly scheduledAt: string;
  /** The target's wall time in the task's zone under the current data, `YYYY-MM-DDTHH:mm:ss±HH:MM`. */
  readonly local: string;
  /**
   * The rule's occurrence nearest to the target under the current data (the earlier one on a
   * tie), or `null` when the rule has none in years 0001–9999.
   */
  readonly occurrence: string | null;
}

/** `remote.drift()`: the time-zone data versions and the drifted wall-clock targets. */
export interface DriftReport {
  /** The version of the time-zone data in use. */
  readonly tzdata: string;
  /** The version the domain records (absent for a domain that never recorded one). */
  readonly writtenWith?: string;
  /** Active daily, weekly and cron tasks whose target the rule no longer yields, by target, then id. */
  readonly tasks: readonly DriftEntry[];
}

/** The stored wall-clock rule of a row, or undefined for `after`, `at` and `every` tasks. */
function wallClockRuleOf(row: TaskRow): WallClockRule | undefined {
  const rule = ruleFromRecord(row.record);
  return rule.kind === 'daily' || rule.kind === 'weekly' || rule.kind === 'cron' ? rule : undefined;
}

/** A key equal for rules that fire alike (kind, zone and timing). */
function ruleKey(rule: WallClockRule): string {
  if (rule.kind === 'cron') return `cron ${rule.timeZone} ${rule.expression}`;
  return rule.kind === 'weekly' ? `weekly ${rule.timeZone} ${rule.time} ${rule.weekdays.join(',')}` : `daily ${rule.timeZone} ${rule.time}`;
}

/** Prepares rules once per distinct rule (parsing a cron expression dominates a single check). */
type FiringsCache = Map<string, WallClockFirings>;

function firingsOf(rule: WallClockRule, cache: FiringsCache | undefined): WallClockFirings {
  if (cache === undefined) return wallClockFirings(rule);
  const key = ruleKey(rule);
  let firings = cache.get(key);
  if (firings === undefined) {
    firings = wallClockFirings(rule);
    cache.set(key, firings);
  }
  return firings;
}

/** The drift entry of one row, or undefined when it is not an active wall-clock task or its target is an occurrence. */
export function driftOf(row: TaskRow, cache?: FiringsCache): DriftEntry | undefined {
  if (row.status !== 'active') return undefined;
  const rule = wallClockRuleOf(row);
  if (rule === undefined) return undefined;
  const target = Date.parse(row.record.scheduledAt);
  const firings = firingsOf(rule, cache);
  const before = firings.latest(target, MIN_INSTANT_MS);
  if (before === target) return undefined;
  const after = firings.next(target);
  let nearest: number | null;
  if (before === null) nearest = after;
  else if (after === null) nearest = before;
  else nearest = after - target < target - before ? after : before;
  const offset = firings.zone.offsetAt(target);
  return {
    sessionId: row.sessionId,
    id: row.record.id,
    scheduledAt: row.record.scheduledAt,
    local: `${formatWallDateTime(target + offset)}${formatOffset(offset)}`,
    occurrence: nearest === null ? null : formatInstant(nearest),
  };
}

/** Orders entries by target, then by task id (`sch_<n>` numerically, other ids as text). */
function compareEntries(a: DriftEntry, b: DriftEntry): number {
  const byTarget = Date.parse(a.scheduledAt) - Date.parse(b.scheduledAt);
  if (byTarget !== 0) return byTarget;
  const na = Number(a.id.slice(4));
  const nb = Number(b.id.slice(4));
  if (Number.isSafeInteger(na) && Number.isSafeInteger(nb) && na !== nb) return na - nb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Every active daily, weekly and cron task among `rows` whose committed target is not an
 * occurrence of its rule under the current time-zone data, sorted by target, then id.
 */
export function driftReport(rows: Iterable<TaskRow>): DriftEntry[] {
  const out: DriftEntry[] = [];
  const cache: FiringsCache = new Map();
  for (const row of rows) {
    const entry = driftOf(row, cache);
    if (entry !== undefined) out.push(entry);
  }
  return out.sort(compareEntries);
}
