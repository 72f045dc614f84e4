// The two directions between stored records (docs/tasks.md) and the normalised rules targets are
// computed from: a record built from a validated rule and its target, the rule a stored record
// carries, and rule equivalence (same kind and same normalised timing).
import { formatInstant, instantMs } from '../time/instant.ts';
import type { Rule, ScheduleRecord } from './types.ts';

/**
 * The record of a task with the given rule and committed target (epoch ms), with the field names
 * of docs/tasks.md: `afterSeconds`, `everySeconds`, `time` + `timeZone` (+ `weekdays` | + `expression`).
 */
export function recordFromRule(id: string, title: string, prompt: string, rule: Rule, target: number): ScheduleRecord {
  const scheduledAt = formatInstant(target);
  switch (rule.kind) {
    case 'after':
      return { id, kind: 'after', title, prompt, scheduledAt, afterSeconds: rule.afterSeconds };
    case 'at':
      return { id, kind: 'at', title, prompt, scheduledAt };
    case 'every':
      return { id, kind: 'every', title, prompt, scheduledAt, everySeconds: rule.everySeconds };
    case 'daily':
      return { id, kind: 'daily', title, prompt, scheduledAt, time: rule.time, timeZone: rule.timeZone };
    case 'weekly':
      return { id, kind: 'weekly', title, prompt, scheduledAt, time: rule.time, timeZone: rule.timeZone, weekdays: [...rule.weekdays] };
    case 'cron':
      return { id, kind: 'cron', title, prompt, scheduledAt, expression: rule.expression, timeZone: rule.timeZone };
  }
}

/** The rule a stored record carries; a one-shot `at` rule is its committed instant. */
export function ruleFromRecord(record: ScheduleRecord): Rule {
  switch (record.kind) {
    case 'after':
      return { kind: 'after', afterSeconds: record.afterSeconds };
    case 'at':
      return { kind: 'at', at: instantMs(record.scheduledAt) };
    case 'every':
      return { kind: 'every', everySeconds: record.everySeconds };
    case 'daily':
      return { kind: 'daily', time: record.time, timeZone: record.timeZone };
    case 'weekly':
      return { kind: 'weekly', time: record.time, timeZone: record.timeZone, weekdays: record.weekdays };
    case 'cron':
      return { kind: 'cron', expression: record.expression, timeZone: record.timeZone };
  }
}

/**
 * True when two normalised rules are of the same kind with the same timing: same delay, instant
 * or interval; same time, zone (and weekdays); same canonical expression and zone.
 */
export function sameRule(a: Rule, b: Rule): boolean {
  switch (a.kind) {
    case 'after':
      return b.kind === 'after' && a.afterSeconds === b.afterSeconds;
    case 'at':
      return b.kind === 'at' && a.at === b.at;
    case 'every':
      return b.kind === 'every' && a.everySeconds === b.everySeconds;
    case 'daily':
      return b.kind === 'daily' && a.time === b.time && a.timeZone === b.timeZone;
    case 'weekly':
      return (
        b.kind === 'weekly' &&
        a.time === b.time &&
        a.timeZone === b.timeZone &&
        a.weekdays.length === b.weekdays.length &&
        a.weekdays.every((day, i) => day === b.weekdays[i])
      );
    case 'cron':
      return b.kind === 'cron' && a.expression === b.expression && a.timeZone === b.timeZone;
  }
}

/**
 * True when two records carry the same rule (as `sameRule` of their `ruleFromRecord`), read from
 * the records' own members without building the rules: every rule but `at` is spelled in a record
 * by the same members, and an `at` rule is its record's target.
 */
export const sameRecordRule = (a: ScheduleRecord, b: ScheduleRecord): boolean =>
  a.kind === 'at' ? b.kind === 'at' && a.scheduledAt === b.scheduledAt : b.kind !== 'at' && sameRule(a, b);
