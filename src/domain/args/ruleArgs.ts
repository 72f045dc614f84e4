// Validation of the timing arguments shared by `schedule_create` selectors and `schedule_update`
// changes: delay and interval seconds, the daily / weekly / cron fields, and the first target of
// a validated rule (docs/selectors.md, docs/errors.md). Each parser returns a normalised `Rule` or throws the code of
// the field: `invalid_rule` for delays, intervals, times, weekdays and cron expressions,
// `invalid_time_zone` for zones; `requireTarget` adds `not_future` and `time_out_of_range`.

import { ScheduleError } from '../errors.ts';
import type { Rule } from '../tasks/types.ts';
import { canonicalizeCron, cronCanMatch, parseCron } from '../time/cron/index.ts';
import { formatInstant, MAX_INSTANT_MS } from '../time/instant.ts';
import { firstTarget } from '../time/recurrence.ts';
import { normalizeTimeZone } from '../time/timeZone.ts';
import { type ArgObject, describeValue, ownValue } from './argShape.ts';
import { normalizeTimeOfDay, normalizeWeekdays } from './fields.ts';

/** The smallest `every_seconds` interval. */
export const MIN_INTERVAL_SECONDS = 60;

const LAST_INSTANT = formatInstant(MAX_INSTANT_MS);

/** Validates `after_seconds`: a positive safe integer (`invalid_rule`). */
export function parseDelaySeconds(value: unknown, field = 'after_seconds'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ScheduleError(
      'invalid_rule',
      `${field} must be a positive whole number of seconds (a JSON number, at most 2^53-1), such as 600; got ${describeValue(value)}.`,
    );
  }
  return value;
}

/** Validates `every_seconds`: a safe integer of at least 60 (`invalid_rule`). */
export function parseIntervalSeconds(value: unknown, field = 'every_seconds'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < MIN_INTERVAL_SECONDS) {
    throw new ScheduleError(
      'invalid_rule',
      `${field} must be a whole number of seconds of at least ${MIN_INTERVAL_SECONDS} (a JSON number), such as 300; got ${describeValue(value)}. ` +
        'For a local time every day use daily instead.',
    );
  }
  return value;
}

/** Reads `time` and `time_zone` of a daily rule; `path` prefixes the field names in messages. */
export function parseDailyFields(obj: ArgObject, path: string): Extract<Rule, { kind: 'daily' }> {
  const time = normalizeTimeOfDay(ownValue(obj, 'time'), `${path}.time`).text;
  const timeZone = normalizeTimeZone(ownValue(obj, 'time_zone'), `${path}.time_zone`);
  return { kind: 'daily', time, timeZone };
}

/** Reads `time`, `time_zone` and `weekdays` of a weekly rule. */
export function parseWeeklyFields(obj: ArgObject, path: string): Extract<Rule, { kind: 'weekly' }> {
  const { time, timeZone } = parseDailyFields(obj, path);
  const weekdays = normalizeWeekdays(ownValue(obj, 'weekdays'), `${path}.weekdays`);
  return { kind: 'weekly', time, timeZone, weekdays };
}

/** Validates a cron expression (`invalid_rule` naming `field`) and returns its canonical form (docs/selectors.md). */
export function normalizeCronExpression(value: unknown, field: string): string {
  parseCron(value, field);
  return canonicalizeCron(value as string);
}

/** Reads `expression` (stored canonical) and `time_zone` of a cron rule. */
export function parseCronFields(obj: ArgObject, path: string): Extract<Rule, { kind: 'cron' }> {
  const expression = normalizeCronExpression(ownValue(obj, 'expression'), `${path}.expression`);
  const timeZone = normalizeTimeZone(ownValue(obj, 'time_zone'), `${path}.time_zone`);
  return { kind: 'cron', expression, timeZone };
}

/**
 * The first target of a validated rule created (or re-anchored) at `nowMs`. Throws `not_future`
 * for an `at` instant that is not strictly after now, and `time_out_of_range` when the rule has
 * no target at or before 9999-12-31T23:59:59.999Z (including a cron expression that can never
 * match, which is seen without any walk).
 */
export function requireTarget(rule: Rule, nowMs: number): number {
  if (rule.kind === 'at' && rule.at <= nowMs) {
    throw new ScheduleError(
      'not_future',
      `at ${formatInstant(rule.at)} is not in the future (now is ${formatInstant(nowMs)}); give a later instant.`,
    );
  }
  if (rule.kind === 'cron' && !cronCanMatch(parseCron(rule.expression))) {
    throw new ScheduleError(
      'time_out_of_range',
      `cron expression "${rule.expression}" can never match: no calendar date satisfies its day-of-month and month fields (such as 30 in February).`,
    );
  }
  const target = firstTarget(rule, nowMs);
  if (target === null) throw new ScheduleError('time_out_of_range', outOfRangeMessage(rule));
  return target;
}

function outOfRangeMessage(rule: Rule): string {
  const limit = `the last supported instant is ${LAST_INSTANT}`;
  switch (rule.kind) {
    case 'after':
      return `after_seconds ${rule.afterSeconds} puts the target beyond year 9999; ${limit}.`;
    case 'at':
      return `at ${formatInstant(rule.at)} is beyond year 9999; ${limit}.`;
    case 'every':
      return `every_seconds ${rule.everySeconds} puts the first target beyond year 9999; ${limit}.`;
    default:
      return `the ${rule.kind} rule has no occurrence from now up to ${LAST_INSTANT}, the last supported instant.`;
  }
}
