// Records built from rules (docs/tasks.md field names), rules read back from records, rule
// equivalence, and the model-facing view with its state.

import { toView } from '../../src/domain/reads/views.ts';
import { recordFromRule, ruleFromRecord, sameRecordRule, sameRule } from '../../src/domain/tasks/records.ts';
import type { Rule } from '../../src/domain/tasks/types.ts';

const T = Date.parse('2030-01-01T08:10:00.000Z');

const rules: Rule[] = [
  { kind: 'after', afterSeconds: 600 },
  { kind: 'at', at: T },
  { kind: 'every', everySeconds: 600 },
  { kind: 'daily', time: '09:00:00', timeZone: 'Asia/Shanghai' },
  { kind: 'weekly', time: '09:00:00.500', timeZone: 'UTC', weekdays: [1, 3] },
  { kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'Asia/Calcutta' },
];

describe('recordFromRule / ruleFromRecord', () => {
  it('uses the docs/tasks.md field names for each kind', () => {
    const [after, at, every, daily, weekly, cron] = rules.map((r) => recordFromRule('t1', 'Title', 'Prompt', r, T));
    const common = { id: 't1', title: 'Title', prompt: 'Prompt', scheduledAt: '2030-01-01T08:10:00.000Z' };
    expect(after).toEqual({ ...common, kind: 'after', afterSeconds: 600 });
    expect(at).toEqual({ ...common, kind: 'at' });
    expect(every).toEqual({ ...common, kind: 'every', everySeconds: 600 });
    expect(daily).toEqual({ ...common, kind: 'daily', time: '09:00:00', timeZone: 'Asia/Shanghai' });
    expect(weekly).toEqual({ ...common, kind: 'weekly', time: '09:00:00.500', timeZone: 'UTC', weekdays: [1, 3] });
    expect(cron).toEqual({ ...common, kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'Asia/Calcutta' });
  });

  it('round-trips every kind (an at rule is its committed instant)', () => {
    for (const rule of rules) expect(ruleFromRecord(recordFromRule('t1', 'T', 'P', rule, T))).toEqual(rule);
  });

  it('sameRule compares kind and normalised timing', () => {
    for (const rule of rules) expect(sameRule(rule, rule)).toBe(true);
    expect(sameRule({ kind: 'every', everySeconds: 60 }, { kind: 'every', everySeconds: 120 })).toBe(false);
    expect(sameRule({ kind: 'after', afterSeconds: 60 }, { kind: 'every', everySeconds: 60 })).toBe(false);
    expect(sameRule(rules[4] as Rule, { kind: 'weekly', time: '09:00:00.500', timeZone: 'UTC', weekdays: [1, 3, 5] })).toBe(false);
    expect(sameRule(rules[3] as Rule, { kind: 'daily', time: '09:00:00', timeZone: 'Asia/Chongqing' })).toBe(false);
    expect(sameRule(rules[5] as Rule, { kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'Asia/Kolkata' })).toBe(false);
  });

  it('sameRecordRule answers as sameRule over the records’ rules, for every pair of kinds, targets and timings', () => {
    const variants: Rule[] = [
      ...rules,
      { kind: 'after', afterSeconds: 601 },
      { kind: 'every', everySeconds: 601 },
      { kind: 'daily', time: '09:00:00', timeZone: 'UTC' },
      { kind: 'weekly', time: '09:00:00.500', timeZone: 'UTC', weekdays: [1, 3, 5] },
      { kind: 'weekly', time: '09:00:00.500', timeZone: 'UTC', weekdays: [1, 4] },
      { kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'UTC' },
    ];
    const records = variants.flatMap((rule) => [T, T + 60_000].map((target) => recordFromRule('t1', 'T', 'P', rule, target)));
    let same = 0;
    for (const a of records) {
      for (const b of records) {
        const expected = sameRule(ruleFromRecord(a), ruleFromRecord(b));
        expect(sameRecordRule(a, b)).toBe(expected);
        if (expected) same++;
      }
    }
    // Each record matches itself and its twin at the other target (an at rule matches only itself).
    expect(same).toBe(records.length * 2 - 2);
  });
});

describe('toView', () => {
  const record = recordFromRule('t1', 'Title', 'Prompt', { kind: 'every', everySeconds: 600 }, T);

  it('is scheduled while the target is in the future, overdue from the target on', () => {
    expect(toView(record, T - 1)).toEqual({ ...record, state: 'scheduled', deliveryMode: 'host' });
    expect(toView(record, T).state).toBe('overdue');
    expect(toView(record, T + 1).state).toBe('overdue');
  });
});
