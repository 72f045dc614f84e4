// The rules the console can preview: a recurring selector in the shape `schedule_create` takes
// (`every_seconds`, `daily`, `weekly` or `cron`), validated by the library exactly as creation
// validates it, or the timing of a stored record, previewed from its committed target.
import { parseTimingSelector, type Rule, ruleFromRecord, type ScheduleRecord } from '../index.ts';

/** The selectors a form preview takes: the recurring ones (a one-shot has nothing to preview). */
export const PREVIEW_SELECTORS = ['every_seconds', 'daily', 'weekly', 'cron'] as const;

/** The rule named by the one recurring selector among the members of `body`. */
export function previewRuleOf(body: Record<string, unknown>): Rule {
  const selectors = Object.fromEntries(Object.entries(body).filter(([key]) => (PREVIEW_SELECTORS as readonly string[]).includes(key)));
  return parseTimingSelector(selectors);
}

/**
 * A stored record's timing, and the instant to preview from so that the first occurrence is the
 * committed target itself. A one-shot has that single occurrence.
 */
export function previewRuleOfRecord(record: ScheduleRecord): { rule: Rule; fromMs: number } {
  const target = Date.parse(record.scheduledAt);
  if (record.kind === 'after' || record.kind === 'at') return { rule: { kind: 'at', at: target }, fromMs: target - 1 };
  if (record.kind === 'every') return { rule: ruleFromRecord(record), fromMs: target - record.everySeconds * 1000 };
  return { rule: ruleFromRecord(record), fromMs: target - 1 };
}
