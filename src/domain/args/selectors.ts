// `schedule_create` argument validation (docs/selectors.md, docs/errors.md): a plain object with `prompt`, `title`
// and exactly one timing selector. Checks run in a fixed order, and the first failure is
// reported: the argument object's shape and unknown arguments (a misspelt selector is named),
// then prompt, then title, then the selector count, then the one selector's own fields
// (in the order they are listed in the tool schema), then not_future / time_out_of_range.

import { ScheduleError } from '../errors.ts';
import type { Rule } from '../tasks/types.ts';
import { type ArgObject, describeKeys, describeValue, hasArg, isPlainObject, listWords, ownValue, unknownKeys } from './argShape.ts';
import { parseAt } from './atSelector.ts';
import { normalizePrompt, normalizeTitle } from './fields.ts';
import {
  parseCronFields,
  parseDailyFields,
  parseDelaySeconds,
  parseIntervalSeconds,
  parseWeeklyFields,
  requireTarget,
} from './ruleArgs.ts';

/** The six timing selectors of `schedule_create`; exactly one is given. */
export const SELECTORS = ['after_seconds', 'at', 'every_seconds', 'daily', 'weekly', 'cron'] as const;
/** One of the six selector argument names. */
export type Selector = (typeof SELECTORS)[number];

/** Every argument `schedule_create` accepts. */
export const CREATE_ARGUMENTS: readonly string[] = ['prompt', 'title', ...SELECTORS];

/** A validated creation: trimmed title and prompt, the normalised rule and its first target (epoch ms). */
export interface CreateRequest {
  readonly title: string;
  readonly prompt: string;
  readonly rule: Rule;
  readonly target: number;
}

/** The members and an example of each object-valued selector. */
const OBJECT_SELECTORS = {
  daily: { keys: ['time', 'time_zone'], example: '{"time":"09:00:00","time_zone":"Asia/Shanghai"}' },
  weekly: { keys: ['time', 'time_zone', 'weekdays'], example: '{"time":"09:00:00","time_zone":"Asia/Shanghai","weekdays":[1,3]}' },
  cron: { keys: ['expression', 'time_zone'], example: '{"expression":"*/15 9-17 * * 1-5","time_zone":"Asia/Shanghai"}' },
} as const;

const SELECTOR_HELP =
  'after_seconds (a delay), at (an instant), every_seconds (a fixed interval), daily, weekly or cron (local times in an explicit zone)';

/**
 * Validates `schedule_create` arguments at `nowMs` and computes the first target. Throws a
 * `ScheduleError`: `invalid_prompt`, `invalid_selector`, `invalid_rule`, `invalid_time_zone`,
 * `not_future` or `time_out_of_range`.
 */
export function parseCreateArgs(args: unknown, nowMs: number): CreateRequest {
  if (!isPlainObject(args)) {
    throw new ScheduleError(
      'invalid_selector',
      `schedule_create arguments must be a JSON object with prompt, title and exactly one of ${SELECTOR_HELP}; got ${describeValue(args)}.`,
    );
  }
  const extra = unknownKeys(args, CREATE_ARGUMENTS);
  if (extra.length > 0) {
    throw new ScheduleError(
      'invalid_selector',
      `Unknown argument${extra.length > 1 ? 's' : ''} ${describeKeys(extra)}. ` +
        `schedule_create accepts prompt, title and exactly one of ${SELECTOR_HELP}.`,
    );
  }
  const prompt = normalizePrompt(ownValue(args, 'prompt'));
  const title = normalizeTitle(ownValue(args, 'title'));
  const rule = parseOneSelector(args);
  return { title, prompt, rule, target: requireTarget(rule, nowMs) };
}

/**
 * The rule named by an object holding exactly one timing selector and nothing else — creation's
 * own validation without prompt and title, for previews. Throws a `ScheduleError` with the codes
 * of creation (`invalid_selector`, `invalid_rule`, `invalid_time_zone`).
 */
export function parseTimingSelector(args: unknown): Rule {
  if (!isPlainObject(args)) {
    throw new ScheduleError(
      'invalid_selector',
      `A timing must be a JSON object with exactly one of ${SELECTOR_HELP}; got ${describeValue(args)}.`,
    );
  }
  const extra = unknownKeys(args, SELECTORS);
  if (extra.length > 0) {
    throw new ScheduleError(
      'invalid_selector',
      `Unknown member${extra.length > 1 ? 's' : ''} ${describeKeys(extra)}; a timing is exactly one of ${SELECTOR_HELP}.`,
    );
  }
  return parseOneSelector(args);
}

/** The rule of the one timing selector among `args` (`invalid_selector` for none or several). */
function parseOneSelector(args: ArgObject): Rule {
  const given = SELECTORS.filter((name) => hasArg(args, name));
  const selector = given[0];
  if (selector === undefined || given.length > 1) {
    throw new ScheduleError(
      'invalid_selector',
      `Give exactly one timing selector: ${SELECTOR_HELP}; ${given.length === 0 ? 'none was given' : `got ${listWords(given)}`}.`,
    );
  }
  return parseSelector(selector, ownValue(args, selector));
}

function parseSelector(selector: Selector, value: unknown): Rule {
  switch (selector) {
    case 'after_seconds':
      return { kind: 'after', afterSeconds: parseDelaySeconds(value) };
    case 'at':
      return { kind: 'at', at: parseAt(value) };
    case 'every_seconds':
      return { kind: 'every', everySeconds: parseIntervalSeconds(value) };
    case 'daily':
      return parseDailyFields(selectorObject('daily', value), 'daily');
    case 'weekly':
      return parseWeeklyFields(selectorObject('weekly', value), 'weekly');
    case 'cron':
      return parseCronFields(selectorObject('cron', value), 'cron');
  }
}

/** The object of a daily / weekly / cron selector, with no members beyond its own (`invalid_rule`). */
function selectorObject(name: keyof typeof OBJECT_SELECTORS, value: unknown): ArgObject {
  const { keys, example } = OBJECT_SELECTORS[name];
  if (!isPlainObject(value)) {
    throw new ScheduleError('invalid_rule', `${name} must be an object such as ${example}; got ${describeValue(value)}.`);
  }
  const extra = unknownKeys(value, keys);
  if (extra.length > 0) {
    throw new ScheduleError(
      'invalid_rule',
      `${name} has unknown member${extra.length > 1 ? 's' : ''} ${describeKeys(extra)}; ` +
        `it accepts exactly ${listWords(keys)}, such as ${example}.`,
    );
  }
  return value;
}
