// schedule_update at the function level: the `change` validator (kinds, members, codes) and
// applyUpdate's rules — omitted fields kept, no-op normalisation, re-anchoring from the save
// time, validation before everything.
import { parseChange } from '../../src/domain/args/change.ts';
import { recordFromRule } from '../../src/domain/tasks/records.ts';
import { applyUpdate } from '../../src/domain/tasks/update.ts';

const T0 = Date.parse('2030-01-01T08:00:00.000Z'); // a Tuesday
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

function failure(action: () => unknown): { code: string; message: string } {
  try {
    action();
  } catch (error) {
    const e = error as { code?: string; message: string };
    return { code: e.code ?? 'not a ScheduleError', message: e.message };
  }
  return { code: 'no error', message: '' };
}

const everyRecord = recordFromRule('t1', 'Thing', 'Do the thing', { kind: 'every', everySeconds: 600 }, T0 + 10 * MIN);
const dailyRecord = recordFromRule(
  't2',
  'Daily',
  'Review',
  { kind: 'daily', time: '09:00:00', timeZone: 'Europe/Paris' },
  Date.parse('2030-01-02T08:00:00Z'),
);
const weeklyRecord = recordFromRule(
  't3',
  'Weekly',
  'Plan',
  { kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Shanghai', weekdays: [1, 3] },
  Date.parse('2030-01-02T01:00:00Z'),
);
const cronRecord = recordFromRule('t4', 'Cron', 'Check', { kind: 'cron', expression: '*/15 * * * *', timeZone: 'UTC' }, T0 + 15 * MIN);
const afterRecord = recordFromRule('t5', 'After', 'Ping', { kind: 'after', afterSeconds: 3600 }, T0 + 60 * MIN);
const atRecord = recordFromRule('t6', 'At', 'Ping', { kind: 'at', at: T0 + 60 * MIN }, T0 + 60 * MIN);

describe('parseChange: every kind computes the target creation would', () => {
  it('every 120 s from the save time', () => {
    expect(parseChange({ kind: 'every', every_seconds: 120 }, T0)).toEqual({
      rule: { kind: 'every', everySeconds: 120 },
      target: T0 + 2 * MIN,
    });
  });

  it('daily 09:00:00.000 in europe/paris: normalised time and zone, next local 09:00', () => {
    const r = parseChange({ kind: 'daily', time: '09:00:00.000', time_zone: 'europe/paris' }, T0);
    expect(r.rule).toEqual({ kind: 'daily', time: '09:00:00', timeZone: 'Europe/Paris' });
    expect(iso(r.target)).toBe('2030-01-02T08:00:00.000Z');
  });

  it('weekly 09:00:00 on [3,1] in Asia/Shanghai', () => {
    const r = parseChange({ kind: 'weekly', time: '09:00:00', time_zone: 'Asia/Shanghai', weekdays: [3, 1] }, T0);
    expect(r.rule).toEqual({ kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Shanghai', weekdays: [1, 3] });
    expect(iso(r.target)).toBe('2030-01-02T01:00:00.000Z');
  });

  it('cron */15 * * * * in UTC at 08:07 targets 08:15; the expression is canonicalised', () => {
    const r = parseChange({ kind: 'cron', expression: '0-59/15 * * * *', time_zone: 'UTC' }, T0 + 7 * MIN);
    expect(r.rule).toEqual({ kind: 'cron', expression: '0-45/15 * * * *', timeZone: 'UTC' });
    expect(iso(r.target)).toBe('2030-01-01T08:15:00.000Z');
    expect(parseChange({ kind: 'cron', expression: '*/15 * * * *', time_zone: 'UTC' }, T0 + 7 * MIN).rule).toMatchObject({
      expression: '*/15 * * * *',
    });
  });

  it('at with an offset string and with a local object', () => {
    expect(parseChange({ kind: 'at', at: '2030-01-01T18:30:00+08:00' }, T0)).toEqual({
      rule: { kind: 'at', at: Date.parse('2030-01-01T10:30:00Z') },
      target: Date.parse('2030-01-01T10:30:00Z'),
    });
    expect(iso(parseChange({ kind: 'at', at: { date: '2030-11-03', time: '01:30', time_zone: 'America/New_York' } }, T0).target)).toBe(
      '2030-11-03T05:30:00.000Z',
    );
  });
});

describe('parseChange: codes', () => {
  const cases: Array<[string, unknown, string]> = [
    ['kind after', { kind: 'after', after_seconds: 60 }, 'invalid_selector'],
    ['unknown kind', { kind: 'monthly', day: 1 }, 'invalid_selector'],
    ['missing kind', { every_seconds: 60 }, 'invalid_selector'],
    ['non-string kind', { kind: 1, every_seconds: 60 }, 'invalid_selector'],
    ['kind from the prototype', Object.create({ kind: 'every' }), 'invalid_selector'],
    ['non-object change', 'every 5 minutes', 'invalid_selector'],
    ['null change', null, 'invalid_selector'],
    ['array change', [{ kind: 'every', every_seconds: 60 }], 'invalid_selector'],
    ['unknown member', { kind: 'every', every_seconds: 60, anchor: 'now' }, 'invalid_selector'],
    ['member of another kind', { kind: 'daily', time: '09:00:00', time_zone: 'UTC', weekdays: [1] }, 'invalid_selector'],
    ['__proto__ member', JSON.parse('{"kind":"every","every_seconds":60,"__proto__":{"x":1}}'), 'invalid_selector'],
    ['offset-free at', { kind: 'at', at: '2030-06-01T10:00:00' }, 'invalid_selector'],
    ['missing at', { kind: 'at' }, 'invalid_selector'],
    [
      'local at in the America/New_York gap',
      { kind: 'at', at: { date: '2030-03-10', time: '02:30', time_zone: 'America/New_York' } },
      'invalid_selector',
    ],
    ['every 30 s', { kind: 'every', every_seconds: 30 }, 'invalid_rule'],
    ['every as a string', { kind: 'every', every_seconds: '600' }, 'invalid_rule'],
    ['missing every_seconds', { kind: 'every' }, 'invalid_rule'],
    ['daily 25:00:00', { kind: 'daily', time: '25:00:00', time_zone: 'UTC' }, 'invalid_rule'],
    ['daily HH:mm', { kind: 'daily', time: '09:00', time_zone: 'UTC' }, 'invalid_rule'],
    ['weekly without weekdays', { kind: 'weekly', time: '09:00:00', time_zone: 'UTC' }, 'invalid_rule'],
    ['weekly weekday 8', { kind: 'weekly', time: '09:00:00', time_zone: 'UTC', weekdays: [8] }, 'invalid_rule'],
    ['cron MON', { kind: 'cron', expression: '0 0 * * MON', time_zone: 'UTC' }, 'invalid_rule'],
    ['cron with six fields', { kind: 'cron', expression: '0 0 0 * * *', time_zone: 'UTC' }, 'invalid_rule'],
    ['daily in Mars/Base', { kind: 'daily', time: '09:00:00', time_zone: 'Mars/Base' }, 'invalid_time_zone'],
    ['cron in EST', { kind: 'cron', expression: '0 9 * * *', time_zone: 'EST' }, 'invalid_time_zone'],
    ['weekly with a numeric zone', { kind: 'weekly', time: '09:00:00', time_zone: 8, weekdays: [1] }, 'invalid_time_zone'],
    ['at in the past', { kind: 'at', at: '2029-01-01T00:00:00Z' }, 'not_future'],
    ['at equal to now', { kind: 'at', at: '2030-01-01T08:00:00.000Z' }, 'not_future'],
    ['at beyond year 9999', { kind: 'at', at: '9999-12-31T23:59:59-01:00' }, 'time_out_of_range'],
    ['every beyond year 9999', { kind: 'every', every_seconds: 8000 * 365 * 86400 }, 'time_out_of_range'],
    ['cron that can never match', { kind: 'cron', expression: '0 0 31 4 *', time_zone: 'UTC' }, 'time_out_of_range'],
  ];
  for (const [name, change, code] of cases) {
    it(`${name} -> ${code}`, () => {
      const f = failure(() => parseChange(change, T0));
      expect(f.code).toBe(code);
      expect(f.message.length).toBeGreaterThan(0);
    });
  }

  it('kind after says to use at instead; an unknown member is named', () => {
    expect(failure(() => parseChange({ kind: 'after', after_seconds: 60 }, T0)).message).toContain('"kind":"at"');
    expect(failure(() => parseChange({ kind: 'every', every_seconds: 60, anchor: 'now' }, T0)).message).toContain('anchor');
  });
});

describe('applyUpdate: omitted fields and title/prompt edits', () => {
  it('a title-only edit on every 600 s keeps kind and target; the title is trimmed', () => {
    const r = applyUpdate(everyRecord, { title: '  Renamed  ' }, T0 + 5 * MIN);
    expect(r).toEqual({ record: { ...everyRecord, title: 'Renamed' }, changed: true });
  });

  it('a prompt-only edit on daily keeps time, zone and target', () => {
    const r = applyUpdate(dailyRecord, { prompt: '  New instruction ' }, T0);
    expect(r.record).toEqual({ ...dailyRecord, prompt: 'New instruction' });
    expect(r.changed).toBe(true);
  });

  it('nothing given, or values equal to the stored ones after trimming, is no change at all', () => {
    expect(applyUpdate(everyRecord, {}, T0)).toEqual({ record: everyRecord, changed: false });
    const same = applyUpdate(everyRecord, { title: ' Thing ', prompt: 'Do the thing\n' }, T0);
    expect(same.changed).toBe(false);
    expect(same.record).toBe(everyRecord);
  });

  it('title and prompt are validated with invalid_prompt', () => {
    expect(failure(() => applyUpdate(everyRecord, { title: '   ' }, T0)).code).toBe('invalid_prompt');
    expect(failure(() => applyUpdate(everyRecord, { title: 'x'.repeat(121) }, T0)).code).toBe('invalid_prompt');
    expect(failure(() => applyUpdate(everyRecord, { prompt: '' }, T0)).code).toBe('invalid_prompt');
    expect(failure(() => applyUpdate(everyRecord, { prompt: 7 }, T0)).code).toBe('invalid_prompt');
  });

  it('validation comes before any change: an invalid title with a valid change fails', () => {
    expect(failure(() => applyUpdate(everyRecord, { title: '', change: { kind: 'every', every_seconds: 120 } }, T0)).code).toBe(
      'invalid_prompt',
    );
  });
});

describe('applyUpdate: equivalent changes are no-ops', () => {
  it('every 600 s on every 600 s: no re-anchoring', () => {
    expect(applyUpdate(everyRecord, { change: { kind: 'every', every_seconds: 600 } }, T0 + 5 * MIN)).toEqual({
      record: everyRecord,
      changed: false,
    });
  });

  it('daily 09:00:00.000 in europe/paris on daily 09:00:00 Europe/Paris', () => {
    const r = applyUpdate(dailyRecord, { change: { kind: 'daily', time: '09:00:00.000', time_zone: 'europe/paris' } }, T0 + 3 * 3_600_000);
    expect(r).toEqual({ record: dailyRecord, changed: false });
  });

  it('weekly with the same weekdays in another order', () => {
    const r = applyUpdate(weeklyRecord, { change: { kind: 'weekly', time: '09:00:00', time_zone: 'Asia/Shanghai', weekdays: [3, 1] } }, T0);
    expect(r.changed).toBe(false);
  });

  it('cron with a different spelling of the same canonical expression and zone', () => {
    const r = applyUpdate(cronRecord, { change: { kind: 'cron', expression: '*/15 * * * *', time_zone: 'utc' } }, T0 + 7 * MIN);
    expect(r).toEqual({ record: cronRecord, changed: false });
    const spelled = applyUpdate(
      cronRecord,
      { change: { kind: 'cron', expression: '*/15,*/30 */1 * * *', time_zone: 'UTC' } },
      T0 + 7 * MIN,
    );
    expect(spelled.changed).toBe(false);
  });

  it('an after or at one-shot changed to at its own instant keeps its kind and spelling', () => {
    const at = { kind: 'at', at: '2030-01-01T17:00:00+08:00' };
    expect(applyUpdate(afterRecord, { change: at }, T0)).toEqual({ record: afterRecord, changed: false });
    expect(applyUpdate(atRecord, { change: at }, T0)).toEqual({ record: atRecord, changed: false });
  });

  it('an equivalent change with a new title writes only the title', () => {
    const r = applyUpdate(everyRecord, { title: 'New', change: { kind: 'every', every_seconds: 600 } }, T0 + 5 * MIN);
    expect(r).toEqual({ record: { ...everyRecord, title: 'New' }, changed: true });
  });

  it('validation first: an at equal to the stored target but no longer future is not_future', () => {
    const now = T0 + 60 * MIN;
    expect(failure(() => applyUpdate(atRecord, { change: { kind: 'at', at: iso(now) } }, now)).code).toBe('not_future');
  });
});

describe('applyUpdate: timing changes re-anchor from the save time', () => {
  it('every 600 s -> every 120 s at 08:02 targets 08:04', () => {
    const r = applyUpdate(everyRecord, { change: { kind: 'every', every_seconds: 120 } }, T0 + 2 * MIN);
    expect(r.changed).toBe(true);
    expect(r.record).toEqual({ ...everyRecord, everySeconds: 120, scheduledAt: '2030-01-01T08:04:00.000Z' });
  });

  it('every -> cron */15 * * * * in UTC at 08:07: kind, fields and target replaced; everySeconds gone', () => {
    const r = applyUpdate(everyRecord, { change: { kind: 'cron', expression: '*/15 * * * *', time_zone: 'UTC' } }, T0 + 7 * MIN);
    expect(r.record).toEqual({
      id: 't1',
      kind: 'cron',
      title: 'Thing',
      prompt: 'Do the thing',
      scheduledAt: '2030-01-01T08:15:00.000Z',
      expression: '*/15 * * * *',
      timeZone: 'UTC',
    });
  });

  it('daily in Europe/Paris -> same time in Europe/Berlin (another zone id) re-targets', () => {
    const r = applyUpdate(dailyRecord, { change: { kind: 'daily', time: '09:00:00', time_zone: 'Europe/Berlin' } }, T0);
    expect(r.changed).toBe(true);
    expect(r.record).toMatchObject({ kind: 'daily', timeZone: 'Europe/Berlin', scheduledAt: '2030-01-02T08:00:00.000Z' });
  });

  it('weekly with other weekdays re-targets; weekdays stored ascending', () => {
    const r = applyUpdate(weeklyRecord, { change: { kind: 'weekly', time: '09:00:00', time_zone: 'Asia/Shanghai', weekdays: [5, 4] } }, T0);
    expect(r.record).toMatchObject({ weekdays: [4, 5], scheduledAt: '2030-01-03T01:00:00.000Z' });
  });

  it('at a different instant on an after one-shot becomes kind at without afterSeconds', () => {
    const r = applyUpdate(afterRecord, { change: { kind: 'at', at: '2030-01-01T12:00:00Z' } }, T0);
    expect(r.record).toEqual({ id: 't5', kind: 'at', title: 'After', prompt: 'Ping', scheduledAt: '2030-01-01T12:00:00.000Z' });
  });

  it('a recurring task changed to at its own committed instant becomes a one-shot', () => {
    const r = applyUpdate(everyRecord, { change: { kind: 'at', at: everyRecord.scheduledAt } }, T0);
    expect(r.changed).toBe(true);
    expect(r.record).toEqual({ id: 't1', kind: 'at', title: 'Thing', prompt: 'Do the thing', scheduledAt: everyRecord.scheduledAt });
  });

  it('a one-shot changed to daily becomes recurring', () => {
    const r = applyUpdate(atRecord, { change: { kind: 'daily', time: '07:00:00', time_zone: 'UTC' } }, T0);
    expect(r.record).toMatchObject({ kind: 'daily', time: '07:00:00', timeZone: 'UTC', scheduledAt: '2030-01-02T07:00:00.000Z' });
  });

  it('change errors keep their codes', () => {
    expect(
      failure(() => applyUpdate(everyRecord, { change: { kind: 'cron', expression: '0 0 * * MON', time_zone: 'UTC' } }, T0)).code,
    ).toBe('invalid_rule');
    expect(failure(() => applyUpdate(everyRecord, { change: { kind: 'every', every_seconds: 30 } }, T0)).code).toBe('invalid_rule');
    expect(failure(() => applyUpdate(everyRecord, { change: { kind: 'daily', time: '09:00:00', time_zone: 'Mars/Base' } }, T0)).code).toBe(
      'invalid_time_zone',
    );
    expect(failure(() => applyUpdate(everyRecord, { change: { kind: 'at', at: '2029-01-01T00:00:00Z' } }, T0)).code).toBe('not_future');
    expect(failure(() => applyUpdate(afterRecord, { change: { kind: 'after', after_seconds: 60 } }, T0)).code).toBe('invalid_selector');
  });
});
