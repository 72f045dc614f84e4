// Applying `schedule_update` / `remote.update` edits to a stored record (docs/management.md), purely.
// Everything is validated first (title, prompt, then change), so an invalid edit never produces
// a record. Omitted fields keep their stored values; a title/prompt-only edit keeps kind and
// target; a change equivalent to the stored rule (same kind and normalised timing, or a one-shot
// changed to `at` its own instant) keeps the stored timing untouched — no re-anchoring, stored
// spelling and kind kept; any other change re-targets exactly as creation would at `nowMs`.
import { parseChange } from '../args/change.ts';
import { normalizePrompt, normalizeTitle } from '../args/fields.ts';
import { instantMs } from '../time/instant.ts';
import { recordFromRule, ruleFromRecord, sameRule } from './records.ts';
import type { Rule, ScheduleRecord } from './types.ts';

/** The editable part of an update request, as received (validated here). */
export interface UpdateInput {
  readonly title?: unknown;
  readonly prompt?: unknown;
  readonly change?: unknown;
}

/** The record after an update, and whether anything at all differs from the stored one. */
export interface UpdateResult {
  readonly record: ScheduleRecord;
  /** False when nothing differs: the caller writes nothing (the returned record is the stored one). */
  readonly changed: boolean;
}

/**
 * Applies an update to `record` at `nowMs` (the time the save is accepted). Id and everything
 * outside the record (binding, status, deliveries) are the caller's and stay as they are.
 * Throws a `ScheduleError` with the code of the first invalid field.
 */
export function applyUpdate(record: ScheduleRecord, input: UpdateInput, nowMs: number): UpdateResult {
  const title = input.title === undefined ? record.title : normalizeTitle(input.title);
  const prompt = input.prompt === undefined ? record.prompt : normalizePrompt(input.prompt);
  const change = input.change === undefined ? null : parseChange(input.change, nowMs);
  const retime = change !== null && !keepsTiming(record, change.rule);
  if (!retime && title === record.title && prompt === record.prompt) return { record, changed: false };
  const next = retime ? recordFromRule(record.id, title, prompt, change.rule, change.target) : { ...record, title, prompt };
  return { record: next, changed: true };
}

/** True when `rule` is equivalent to the stored timing, so the committed target stays. */
export function keepsTiming(record: ScheduleRecord, rule: Rule): boolean {
  if (rule.kind === 'at' && (record.kind === 'after' || record.kind === 'at')) return instantMs(record.scheduledAt) === rule.at;
  return sameRule(ruleFromRecord(record), rule);
}
