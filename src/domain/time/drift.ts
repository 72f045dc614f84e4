// Time-zone data drift: committed targets of wall-clock tasks (daily, weekly, cron) that the rule
// no longer yields under the time-zone data in use. A committed target is never recomputed, so
// when zone rules change (a country drops or moves DST) a target written under older data can sit
// an hour off. The report is pure and cheap: per task one backward jump of the recurrence engine
// (the latest firing at or before the target) and, only for a drifted target, one forward jump
// (the next firing after it) — never a walk over minutes. A target at the later instant of a
// repeated wall time is drifted: the rule fires only at the earlier one.

import { ruleFromRecord } from '../tasks/records.ts';
import type { TaskRow, WallClockRule } from '../tasks/types.ts';
import { formatOffset, formatWallDateTime } from './calendar.ts';
import { formatInstant, instantMs, MIN_INSTANT_MS } from './instant.ts';
import { type WallClockFirings, wallClockFirings } from './recurrence.ts';

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

/** The {@link ruleKey} of a record's rule, or undefined for `after`, `at` and `every` records (no rule object is built). */
function recordRuleKey(record: TaskRow['record']): string | undefined {
  switch (record.kind) {
    case 'daily':
      return `daily ${record.timeZone} ${record.time}`;
    case 'weekly':
      return `weekly ${record.timeZone} ${record.time} ${record.weekdays.join(',')}`;
    case 'cron':
      return `cron ${record.timeZone} ${record.expression}`;
    default:
      return undefined;
  }
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

/** Orders entries (or records) by target, then by task id (`sch_<n>` numerically, other ids as text). */
export function compareEntries(a: Pick<DriftEntry, 'scheduledAt' | 'id'>, b: Pick<DriftEntry, 'scheduledAt' | 'id'>): number {
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

/** A rule prepared once, with the last target it was asked about and the answer. */
interface CheckedRule {
  readonly record: TaskRow['record'];
  readonly firings: WallClockFirings;
  lastTarget: string;
  lastOccurs: boolean;
}

/** True when two wall-clock records of one kind fire alike (same zone and timing). */
function sameTiming(a: TaskRow['record'], b: TaskRow['record']): boolean {
  if (a.kind === 'daily') return b.kind === 'daily' && a.time === b.time && a.timeZone === b.timeZone;
  if (a.kind === 'cron') return b.kind === 'cron' && a.expression === b.expression && a.timeZone === b.timeZone;
  if (a.kind !== 'weekly' || b.kind !== 'weekly' || a.time !== b.time || a.timeZone !== b.timeZone) return false;
  const x = a.weekdays;
  const y = b.weekdays;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** How many rows {@link driftReport} would list, without building the entries (see {@link driftedRows}). */
export function driftedCount(rows: Iterable<TaskRow>): number {
  let drifted = 0;
  for (const _row of driftedRows(rows)) drifted++;
  return drifted;
}

/**
 * The rows {@link driftReport} would list, in the order given, without building their entries:
 * per active wall-clock task one check that its target is a firing of its rule (the latest
 * firing in the one-instant window at the target). Each distinct rule is prepared once; the rule
 * of the previous task of the same kind is tried first, so a domain of few distinct rules builds
 * no key per task.
 */
export function* driftedRows(rows: Iterable<TaskRow>): Generator<TaskRow, void, undefined> {
  const rules = new Map<string, CheckedRule>();
  let lastDaily: CheckedRule | undefined;
  let lastWeekly: CheckedRule | undefined;
  let lastCron: CheckedRule | undefined;
  for (const row of rows) {
    if (row.status !== 'active') continue;
    const record = row.record;
    const kind = record.kind;
    let checked = kind === 'daily' ? lastDaily : kind === 'weekly' ? lastWeekly : kind === 'cron' ? lastCron : null;
    if (checked === null) continue;
    if (checked === undefined || !sameTiming(checked.record, record)) {
      const key = recordRuleKey(record) as string;
      checked = rules.get(key);
      if (checked === undefined) {
        const rule = wallClockRuleOf(row) as WallClockRule;
        checked = { record, firings: wallClockFirings(rule), lastTarget: '', lastOccurs: false };
        rules.set(key, checked);
      }
      if (kind === 'daily') lastDaily = checked;
      else if (kind === 'weekly') lastWeekly = checked;
      else lastCron = checked;
    }
    const at = record.scheduledAt;
    if (at !== checked.lastTarget) {
      // A stored target is canonical text (the decoder checked it), read from its digits.
      const target = instantMs(at);
      checked.lastOccurs = checked.firings.latest(target, target) === target;
      checked.lastTarget = at;
    }
    if (!checked.lastOccurs) yield row;
  }
}
