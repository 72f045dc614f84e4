// The `change` of `schedule_update` and `remote.update` (docs/management.md): a discriminated object
// `{kind:"at",at}`, `{kind:"every",every_seconds}`, `{kind:"daily",time,time_zone}`,
// `{kind:"weekly",time,time_zone,weekdays}` or `{kind:"cron",expression,time_zone}`. Any other
// kind (`after` included), a non-object, or an unknown member is `invalid_selector`; the members
// themselves get the same codes as at creation, and the target is computed as creation would.

import { ScheduleError } from '../errors.ts';
import type { Rule } from '../tasks/types.ts';
import { describeKeys, describeValue, isPlainObject, listWords, ownValue, unknownKeys } from './argShape.ts';
import { parseAt } from './atSelector.ts';
import { parseCronFields, parseDailyFields, parseIntervalSeconds, parseWeeklyFields, requireTarget } from './ruleArgs.ts';

/** The members of each change kind besides `kind`. */
const CHANGE_MEMBERS = {
  at: ['at'],
  every: ['every_seconds'],
  daily: ['time', 'time_zone'],
  weekly: ['time', 'time_zone', 'weekdays'],
  cron: ['expression', 'time_zone'],
} as const;

/** The kinds a timing change may have (never `after`). */
export type ChangeKind = keyof typeof CHANGE_MEMBERS;
/** Every change kind, in the order messages list them. */
export const CHANGE_KINDS = Object.keys(CHANGE_MEMBERS) as ChangeKind[];

const isChangeKind = (value: unknown): value is ChangeKind => typeof value === 'string' && Object.hasOwn(CHANGE_MEMBERS, value);

const SHAPES =
  '{"kind":"at","at":"2030-01-01T09:00:00+08:00"}, {"kind":"every","every_seconds":300}, ' +
  '{"kind":"daily","time":"09:00:00","time_zone":"Asia/Shanghai"}, ' +
  '{"kind":"weekly","time":"09:00:00","time_zone":"Asia/Shanghai","weekdays":[1,3]} or ' +
  '{"kind":"cron","expression":"*/15 9-17 * * 1-5","time_zone":"Asia/Shanghai"}';

/** A validated timing change: the normalised rule and its target computed from `nowMs`. */
export interface ParsedChange {
  readonly rule: Rule;
  readonly target: number;
}

/**
 * Validates an update's `change` at `nowMs` (the time the save is accepted) and computes the new
 * target exactly as creation would. Throws a `ScheduleError` (`invalid_selector`, `invalid_rule`,
 * `invalid_time_zone`, `not_future`, `time_out_of_range`).
 */
export function parseChange(change: unknown, nowMs: number): ParsedChange {
  if (!isPlainObject(change)) throw new ScheduleError('invalid_selector', `change must be an object: one of ${SHAPES}.`);
  const kind = ownValue(change, 'kind');
  if (kind === 'after') {
    throw new ScheduleError(
      'invalid_selector',
      'change.kind "after" is not accepted: a relative delay cannot be set by an update. Use {"kind":"at","at":…} with an absolute instant.',
    );
  }
  if (!isChangeKind(kind)) {
    throw new ScheduleError(
      'invalid_selector',
      `change.kind ${describeValue(kind)} is not one of ${listWords(CHANGE_KINDS, 'or')}: give ${SHAPES}.`,
    );
  }
  const members = CHANGE_MEMBERS[kind];
  const extra = unknownKeys(change, ['kind', ...members]);
  if (extra.length > 0) {
    throw new ScheduleError(
      'invalid_selector',
      `change has unknown member${extra.length > 1 ? 's' : ''} ${describeKeys(extra)}; ` +
        `a change of kind "${kind}" accepts exactly ${listWords(['kind', ...members])}.`,
    );
  }
  const rule = parseChangeRule(kind, change);
  return { rule, target: requireTarget(rule, nowMs) };
}

function parseChangeRule(kind: ChangeKind, change: Readonly<Record<string, unknown>>): Rule {
  switch (kind) {
    case 'at':
      return { kind: 'at', at: parseAt(ownValue(change, 'at'), 'change.at') };
    case 'every':
      return { kind: 'every', everySeconds: parseIntervalSeconds(ownValue(change, 'every_seconds'), 'change.every_seconds') };
    case 'daily':
      return parseDailyFields(change, 'change');
    case 'weekly':
      return parseWeeklyFields(change, 'change');
    case 'cron':
      return parseCronFields(change, 'change');
  }
}
