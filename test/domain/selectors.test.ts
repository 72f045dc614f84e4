// schedule_create argument validation at the function level: happy paths of every selector,
// the whole validation table, and the stricter cases around it (argument
// shape, prototype keys, `at` syntax, members inside object selectors, range limits).
import { parseCreateArgs } from '../../src/domain/args/selectors.ts';

const T0 = Date.parse('2030-01-01T08:00:00.000Z'); // a Tuesday
const base = { prompt: 'Check the build', title: 'Build check' };
const iso = (ms: number) => new Date(ms).toISOString();

function failure(args: unknown, now = T0): { code: string; message: string } {
  try {
    parseCreateArgs(args, now);
  } catch (error) {
    const e = error as { code?: string; message: string };
    return { code: e.code ?? 'not a ScheduleError', message: e.message };
  }
  return { code: 'no error', message: '' };
}

const target = (args: Record<string, unknown>, now = T0) => iso(parseCreateArgs(args, now).target);

describe('parseCreateArgs: selectors', () => {
  it('after_seconds: now + delay, title and prompt trimmed', () => {
    const r = parseCreateArgs({ prompt: '  Check the build \n', title: '  Build check  ', after_seconds: 600 }, T0);
    expect(r).toEqual({
      title: 'Build check',
      prompt: 'Check the build',
      rule: { kind: 'after', afterSeconds: 600 },
      target: T0 + 600_000,
    });
  });

  it('at with offsets, fractions and Z: the instant', () => {
    expect(target({ ...base, at: '2030-01-01T18:30:00+08:00' })).toBe('2030-01-01T10:30:00.000Z');
    expect(target({ ...base, at: '2030-01-02T00:00:00.5Z' })).toBe('2030-01-02T00:00:00.500Z');
    expect(target({ ...base, at: '2030-06-01T12:00:00.123-05:30' })).toBe('2030-06-01T17:30:00.123Z');
    expect(target({ ...base, at: '2030-01-01T08:00:00.001Z' })).toBe('2030-01-01T08:00:00.001Z');
    expect(parseCreateArgs({ ...base, at: '2030-01-01T18:30:00+08:00' }, T0).rule).toEqual({
      kind: 'at',
      at: Date.parse('2030-01-01T10:30:00Z'),
    });
  });

  it('at accepts lower-case t and z and reads -00:00 as UTC (RFC 3339 §5.6)', () => {
    expect(target({ ...base, at: '2030-01-02t09:00:00z' })).toBe('2030-01-02T09:00:00.000Z');
    expect(target({ ...base, at: '2030-01-02T09:00:00-00:00' })).toBe('2030-01-02T09:00:00.000Z');
  });

  it('local at in Europe/Berlin and UTC resolves in the zone; HH:mm and fractions accepted', () => {
    expect(target({ ...base, at: { date: '2030-06-01', time: '09:00', time_zone: 'Europe/Berlin' } })).toBe('2030-06-01T07:00:00.000Z');
    expect(target({ ...base, at: { date: '2030-06-01', time: '09:00:30.25', time_zone: 'Europe/Berlin' } })).toBe(
      '2030-06-01T07:00:30.250Z',
    );
    expect(target({ ...base, at: { date: '2030-01-15', time: '23:59:59', time_zone: 'UTC' } })).toBe('2030-01-15T23:59:59.000Z');
  });

  it('local at 01:30 in the America/New_York 2030-11-03 overlap takes the earlier instant', () => {
    expect(target({ ...base, at: { date: '2030-11-03', time: '01:30', time_zone: 'America/New_York' } })).toBe('2030-11-03T05:30:00.000Z');
  });

  it('local at 02:30 in the America/New_York 2030-03-10 gap is invalid_selector naming the jump', () => {
    const f = failure({ ...base, at: { date: '2030-03-10', time: '02:30', time_zone: 'America/New_York' } });
    expect(f.code).toBe('invalid_selector');
    expect(f.message).toContain('does not exist in America/New_York');
    expect(f.message).toContain('from 02:00 to 03:00');
  });

  it('local at on the date Pacific/Apia skipped (2011-12-30) is invalid_selector', () => {
    const now = Date.parse('2011-12-01T00:00:00Z');
    const f = failure({ ...base, at: { date: '2011-12-30', time: '12:00', time_zone: 'Pacific/Apia' } }, now);
    expect(f.code).toBe('invalid_selector');
    expect(f.message).toContain('2011-12-30 00:00 to 2011-12-31 00:00');
  });

  it('every_seconds: now + interval; 86400 stays a fixed interval', () => {
    expect(parseCreateArgs({ ...base, every_seconds: 60 }, T0)).toMatchObject({
      rule: { kind: 'every', everySeconds: 60 },
      target: T0 + 60_000,
    });
    expect(target({ ...base, every_seconds: 86400 })).toBe('2030-01-02T08:00:00.000Z');
  });

  it('daily in Asia/Shanghai and UTC: first strictly-future local occurrence, time normalised', () => {
    const a = parseCreateArgs({ ...base, daily: { time: '09:00:00', time_zone: 'Asia/Shanghai' } }, T0);
    expect(a.rule).toEqual({ kind: 'daily', time: '09:00:00', timeZone: 'Asia/Shanghai' });
    expect(iso(a.target)).toBe('2030-01-02T01:00:00.000Z');
    const b = parseCreateArgs({ ...base, daily: { time: '07:05:09.5', time_zone: 'UTC' } }, T0);
    expect(b.rule).toMatchObject({ time: '07:05:09.500' });
    expect(iso(b.target)).toBe('2030-01-02T07:05:09.500Z');
    expect(parseCreateArgs({ ...base, daily: { time: '23:59:59.000', time_zone: 'UTC' } }, T0).rule).toMatchObject({ time: '23:59:59' });
    expect(target({ ...base, daily: { time: '08:00:00', time_zone: 'UTC' } })).toBe('2030-01-02T08:00:00.000Z');
  });

  it('weekly in Asia/Shanghai: weekdays stored unique ascending', () => {
    const r = parseCreateArgs({ ...base, weekly: { time: '09:00:00', time_zone: 'Asia/Shanghai', weekdays: [3, 1] } }, T0);
    expect(r.rule).toEqual({ kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Shanghai', weekdays: [1, 3] });
    expect(iso(r.target)).toBe('2030-01-02T01:00:00.000Z');
    expect(target({ ...base, weekly: { time: '09:00:00', time_zone: 'Asia/Shanghai', weekdays: [7] } })).toBe('2030-01-06T01:00:00.000Z');
  });

  it('cron */15 9-17 * * 1-5 in Asia/Shanghai: first matching minute, canonical expression stored', () => {
    const r = parseCreateArgs({ ...base, cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'Asia/Shanghai' } }, T0);
    expect(r.rule).toEqual({ kind: 'cron', expression: '*/15 9-17 * * 1-5', timeZone: 'Asia/Shanghai' });
    expect(iso(r.target)).toBe('2030-01-01T08:15:00.000Z');
    expect(parseCreateArgs({ ...base, cron: { expression: '*/1 * * * 7', time_zone: 'UTC' } }, T0).rule).toMatchObject({
      expression: '* * * * 0',
    });
  });

  it('zones are case-normalised and aliases kept as given', () => {
    expect(parseCreateArgs({ ...base, daily: { time: '09:00:00', time_zone: 'asia/shanghai' } }, T0).rule).toMatchObject({
      timeZone: 'Asia/Shanghai',
    });
    const calcutta = parseCreateArgs({ ...base, daily: { time: '09:00:00', time_zone: 'Asia/Calcutta' } }, T0);
    expect(calcutta.rule).toMatchObject({ timeZone: 'Asia/Calcutta' });
    expect(iso(calcutta.target)).toBe('2030-01-02T03:30:00.000Z');
    expect(parseCreateArgs({ ...base, cron: { expression: '0 9 * * *', time_zone: 'utc' } }, T0).rule).toMatchObject({ timeZone: 'UTC' });
  });

  it('a title of exactly 120 characters after trimming is accepted; a selector given as undefined is absent', () => {
    const title = 'x'.repeat(120);
    expect(parseCreateArgs({ prompt: 'p', title: `  ${title}  `, after_seconds: 60 }, T0).title).toBe(title);
    expect(parseCreateArgs({ ...base, after_seconds: undefined, every_seconds: 60 }, T0).rule.kind).toBe('every');
  });
});

describe('parseCreateArgs: the validation table', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['blank prompt', { prompt: '   ', title: 't', after_seconds: 60 }, 'invalid_prompt'],
    ['missing prompt', { title: 't', after_seconds: 60 }, 'invalid_prompt'],
    ['non-string prompt', { prompt: 42, title: 't', after_seconds: 60 }, 'invalid_prompt'],
    ['blank title', { prompt: 'p', title: ' \t ', after_seconds: 60 }, 'invalid_prompt'],
    ['missing title', { prompt: 'p', after_seconds: 60 }, 'invalid_prompt'],
    ['title over 120 characters', { prompt: 'p', title: 'y'.repeat(121), after_seconds: 60 }, 'invalid_prompt'],
    ['non-string title', { prompt: 'p', title: 7, after_seconds: 60 }, 'invalid_prompt'],
    ['no selector', { ...base }, 'invalid_selector'],
    ['two selectors', { ...base, after_seconds: 60, every_seconds: 60 }, 'invalid_selector'],
    ['at and daily', { ...base, at: '2031-01-01T00:00:00Z', daily: { time: '09:00:00', time_zone: 'UTC' } }, 'invalid_selector'],
    ['offset-free at', { ...base, at: '2030-01-01T10:00:00' }, 'invalid_selector'],
    ['at with four fraction digits', { ...base, at: '2030-01-01T10:00:00.1234Z' }, 'invalid_selector'],
    ['at that is not a date', { ...base, at: 'tomorrow at nine' }, 'invalid_selector'],
    ['non-string at', { ...base, at: 1893456000000 }, 'invalid_selector'],
    ['local at with an impossible date', { ...base, at: { date: '2030-02-30', time: '09:00', time_zone: 'UTC' } }, 'invalid_selector'],
    ['after_seconds 0', { ...base, after_seconds: 0 }, 'invalid_rule'],
    ['after_seconds negative', { ...base, after_seconds: -5 }, 'invalid_rule'],
    ['after_seconds fractional', { ...base, after_seconds: 1.5 }, 'invalid_rule'],
    ['after_seconds not safe', { ...base, after_seconds: 2 ** 53 }, 'invalid_rule'],
    ['after_seconds as a string', { ...base, after_seconds: '600' }, 'invalid_rule'],
    ['every_seconds 59', { ...base, every_seconds: 59 }, 'invalid_rule'],
    ['every_seconds fractional', { ...base, every_seconds: 60.5 }, 'invalid_rule'],
    ['weekday 8', { ...base, weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [1, 8] } }, 'invalid_rule'],
    ['weekday 0', { ...base, weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [0] } }, 'invalid_rule'],
    ['no weekdays', { ...base, weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [] } }, 'invalid_rule'],
    ['daily hour 25', { ...base, daily: { time: '25:00:00', time_zone: 'UTC' } }, 'invalid_rule'],
    ['daily one-digit hour', { ...base, daily: { time: '9:00:00', time_zone: 'UTC' } }, 'invalid_rule'],
    ['daily four fraction digits', { ...base, daily: { time: '09:00:00.1234', time_zone: 'UTC' } }, 'invalid_rule'],
    ['daily non-string time', { ...base, daily: { time: 900, time_zone: 'UTC' } }, 'invalid_rule'],
    ['bad cron', { ...base, cron: { expression: '0 0 * * MON', time_zone: 'UTC' } }, 'invalid_rule'],
    ['unknown zone', { ...base, daily: { time: '09:00:00', time_zone: 'Mars/Base' } }, 'invalid_time_zone'],
    ['offset as zone', { ...base, daily: { time: '09:00:00', time_zone: '+08:00' } }, 'invalid_time_zone'],
    ['abbreviation as zone', { ...base, weekly: { time: '09:00:00', time_zone: 'EST', weekdays: [1] } }, 'invalid_time_zone'],
    ['GMT as zone', { ...base, daily: { time: '09:00:00', time_zone: 'GMT' } }, 'invalid_time_zone'],
    ['POSIX-style EST5EDT as zone', { ...base, cron: { expression: '0 9 * * *', time_zone: 'EST5EDT' } }, 'invalid_time_zone'],
    ['cron with an offset zone', { ...base, cron: { expression: '0 9 * * *', time_zone: '+08:00' } }, 'invalid_time_zone'],
    ['local at with an unknown zone', { ...base, at: { date: '2030-06-01', time: '09:00', time_zone: 'Mars/Base' } }, 'invalid_time_zone'],
    ['non-string zone', { ...base, daily: { time: '09:00:00', time_zone: 8 } }, 'invalid_time_zone'],
    ['at equal to now', { ...base, at: '2030-01-01T08:00:00Z' }, 'not_future'],
    ['at in the past', { ...base, at: '2029-12-31T23:59:59.999Z' }, 'not_future'],
    ['local at in the past', { ...base, at: { date: '2030-01-01', time: '08:59', time_zone: 'Europe/Berlin' } }, 'not_future'],
    ['delay beyond year 9999', { ...base, after_seconds: 8000 * 365 * 86400 }, 'time_out_of_range'],
    ['largest safe delay', { ...base, after_seconds: Number.MAX_SAFE_INTEGER }, 'time_out_of_range'],
    ['interval beyond year 9999', { ...base, every_seconds: 8000 * 365 * 86400 }, 'time_out_of_range'],
  ];

  for (const [name, args, code] of cases) {
    it(`${name} -> ${code}`, () => {
      const f = failure(args);
      expect(f.code).toBe(code);
      expect(f.message.trim().length).toBeGreaterThan(0);
    });
  }

  it('an unknown top-level argument is invalid_selector and the message names it', () => {
    const f = failure({ ...base, after_seconds: 60, repeat_forever: true });
    expect(f.code).toBe('invalid_selector');
    expect(f.message).toContain('repeat_forever');
  });
});

describe('parseCreateArgs: argument shape and prototype keys', () => {
  it('non-object arguments are invalid_selector', () => {
    for (const args of [null, undefined, 'after 10 minutes', 42, [base], new Date(T0), new Map()]) {
      expect(failure(args).code).toBe('invalid_selector');
    }
  });

  it('an object without a prototype is accepted', () => {
    const args = Object.assign(Object.create(null) as Record<string, unknown>, { ...base, after_seconds: 60 });
    expect(parseCreateArgs(args, T0).target).toBe(T0 + 60_000);
  });

  it('__proto__ and constructor keys are unknown arguments and pollute nothing', () => {
    const proto = JSON.parse('{"prompt":"p","title":"t","after_seconds":60,"__proto__":{"polluted":true}}') as unknown;
    const f = failure(proto);
    expect(f).toMatchObject({ code: 'invalid_selector' });
    expect(f.message).toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const ctor = failure({ ...base, after_seconds: 60, constructor: { prototype: { polluted: true } } });
    expect(ctor.code).toBe('invalid_selector');
    expect(ctor.message).toContain('constructor');
  });

  it('inherited members are never read as arguments', () => {
    const args = Object.create({ after_seconds: 60 }) as Record<string, unknown>;
    Object.assign(args, base);
    expect(failure(args).code).toBe('invalid_selector');
  });
});

describe('parseCreateArgs: order of checks', () => {
  it('unknown arguments come first, so a misspelt name is reported rather than what it left missing', () => {
    const f = failure({ promt: 'p', title: 't', after_seconds: 60 });
    expect(f.code).toBe('invalid_selector');
    expect(f.message).toContain('promt');
  });

  it('prompt, then title, then the selector count, then the selector', () => {
    expect(failure({ prompt: '', title: '', every_seconds: 1, daily: 1 }).message).toContain('prompt');
    expect(failure({ prompt: 'p', title: '', every_seconds: 1, daily: 1 }).message).toContain('title');
    expect(failure({ ...base, every_seconds: 1, daily: 1 })).toMatchObject({ code: 'invalid_selector' });
    expect(failure({ ...base, every_seconds: 1 })).toMatchObject({ code: 'invalid_rule' });
  });

  it('the selector count message lists what was given', () => {
    expect(failure({ ...base, after_seconds: 60, every_seconds: 60 }).message).toContain('got after_seconds and every_seconds');
    expect(failure({ ...base }).message).toContain('none was given');
  });

  it('inside daily, the time is checked before the zone', () => {
    expect(failure({ ...base, daily: { time: '25:00:00', time_zone: 'Mars/Base' } }).code).toBe('invalid_rule');
  });

  it('a malformed at is invalid_selector before its zone is looked at', () => {
    expect(failure({ ...base, at: { date: '2030-02-30', time: '09:00', time_zone: 'Mars/Base' } }).code).toBe('invalid_selector');
  });
});

describe('parseCreateArgs: at syntax', () => {
  const invalid: Array<[string, unknown, string]> = [
    ['space instead of T', '2030-01-02 09:00:00Z', 'not a date-time'],
    ['no seconds', '2030-01-02T09:00Z', 'no seconds'],
    ['no offset', '2030-01-02T09:00:00', 'no offset'],
    ['four fraction digits', '2030-01-02T09:00:00.1234+01:00', '4 fraction digits'],
    ['leap second', '2030-06-30T23:59:60Z', 'impossible time'],
    ['hour 24', '2030-01-02T24:00:00Z', 'impossible time'],
    ['offset +24:00', '2030-01-02T09:00:00+24:00', 'impossible offset'],
    ['offset without colon', '2030-01-02T09:00:00+0800', 'not a date-time'],
    ['February 29 of a common year', '2031-02-29T09:00:00Z', 'does not exist'],
    ['month 13', '2030-13-01T09:00:00Z', 'does not exist'],
    ['boolean', true, 'got true'],
    ['null', null, 'got null'],
    ['array', ['2030-01-02T09:00:00Z'], 'got ['],
  ];
  for (const [name, at, text] of invalid) {
    it(`${name} is invalid_selector`, () => {
      const f = failure({ ...base, at });
      expect(f.code).toBe('invalid_selector');
      expect(f.message).toContain(text);
    });
  }

  it('local at: unknown members, missing members, bad date and time forms are invalid_selector', () => {
    const local = { date: '2030-06-01', time: '09:00', time_zone: 'UTC' };
    expect(failure({ ...base, at: { ...local, offset: '+02:00' } }).message).toContain('offset');
    expect(failure({ ...base, at: { ...local, offset: '+02:00' } }).code).toBe('invalid_selector');
    expect(failure({ ...base, at: { time: '09:00', time_zone: 'UTC' } }).code).toBe('invalid_selector');
    expect(failure({ ...base, at: { date: '2030-06-01', time_zone: 'UTC' } }).code).toBe('invalid_selector');
    expect(failure({ ...base, at: { ...local, date: '2030-6-1' } }).code).toBe('invalid_selector');
    expect(failure({ ...base, at: { ...local, time: '9:00' } }).code).toBe('invalid_selector');
    expect(failure({ ...base, at: { ...local, time: '09:00:00.1234' } }).code).toBe('invalid_selector');
    expect(failure({ ...base, at: { ...local, time: '09:00Z' } }).code).toBe('invalid_selector');
  });

  it('local at without a zone is invalid_time_zone', () => {
    expect(failure({ ...base, at: { date: '2030-06-01', time: '09:00' } }).code).toBe('invalid_time_zone');
  });

  it('local at years 0001 and 0099 are real years (not 19xx) and therefore in the past', () => {
    expect(failure({ ...base, at: { date: '0099-06-01', time: '09:00', time_zone: 'UTC' } }).code).toBe('not_future');
    expect(failure({ ...base, at: '0001-01-01T00:00:00Z' }).code).toBe('not_future');
  });
});

describe('parseCreateArgs: members of daily, weekly and cron', () => {
  it('unknown members inside daily, weekly and cron are invalid_rule naming them', () => {
    const d = failure({ ...base, daily: { time: '09:00:00', time_zone: 'UTC', weekdays: [1] } });
    expect(d.code).toBe('invalid_rule');
    expect(d.message).toContain('weekdays');
    expect(failure({ ...base, weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [1], every: 2 } }).code).toBe('invalid_rule');
    const c = failure({ ...base, cron: { expression: '0 9 * * *', time_zone: 'UTC', seconds: 0 } });
    expect(c.code).toBe('invalid_rule');
    expect(c.message).toContain('seconds');
  });

  it('a daily, weekly or cron selector that is not an object is invalid_rule', () => {
    expect(failure({ ...base, daily: '09:00:00' }).code).toBe('invalid_rule');
    expect(failure({ ...base, weekly: [1, 3] }).code).toBe('invalid_rule');
    expect(failure({ ...base, cron: '0 9 * * *' }).code).toBe('invalid_rule');
  });

  it('weekdays: duplicates, non-integers and non-arrays are invalid_rule', () => {
    for (const weekdays of [[1, 1], [1.5], ['1'], 1, null]) {
      expect(failure({ ...base, weekly: { time: '09:00:00', time_zone: 'UTC', weekdays } }).code).toBe('invalid_rule');
    }
  });

  it('delays and intervals that are not finite numbers are invalid_rule', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, null, true, [60], '60']) {
      expect(failure({ ...base, after_seconds: value }).code).toBe('invalid_rule');
      expect(failure({ ...base, every_seconds: value }).code).toBe('invalid_rule');
    }
  });

  it('cron: a missing or non-string expression is invalid_rule; a missing zone invalid_time_zone', () => {
    expect(failure({ ...base, cron: { time_zone: 'UTC' } }).code).toBe('invalid_rule');
    expect(failure({ ...base, cron: { expression: 5, time_zone: 'UTC' } }).code).toBe('invalid_rule');
    expect(failure({ ...base, cron: { expression: '0 9 * * *' } }).code).toBe('invalid_time_zone');
  });
});

describe('parseCreateArgs: time_out_of_range', () => {
  it('cron 0 0 30 2 * in UTC can never match: time_out_of_range at once', () => {
    const f = failure({ ...base, cron: { expression: '0 0 30 2 *', time_zone: 'UTC' } });
    expect(f.code).toBe('time_out_of_range');
    expect(f.message).toContain('never match');
  });

  it('cron 0 0 29 2 * in UTC after the last leap day before year 10000 is time_out_of_range', () => {
    const now = Date.parse('9996-03-01T00:00:00Z');
    expect(failure({ ...base, cron: { expression: '0 0 29 2 *', time_zone: 'UTC' } }, now).code).toBe('time_out_of_range');
    expect(target({ ...base, cron: { expression: '0 0 29 2 *', time_zone: 'UTC' } }, Date.parse('9996-01-01T00:00:00Z'))).toBe(
      '9996-02-29T00:00:00.000Z',
    );
  });

  it('daily 09:00:00 in UTC on the last day of year 9999 after 09:00 has no target', () => {
    const now = Date.parse('9999-12-31T10:00:00Z');
    expect(failure({ ...base, daily: { time: '09:00:00', time_zone: 'UTC' } }, now).code).toBe('time_out_of_range');
    expect(target({ ...base, daily: { time: '23:59:59.999', time_zone: 'UTC' } }, now)).toBe('9999-12-31T23:59:59.999Z');
  });

  it('at beyond 9999-12-31T23:59:59.999Z through its offset is time_out_of_range; the last instant is accepted', () => {
    expect(failure({ ...base, at: '9999-12-31T23:00:00-05:00' }).code).toBe('time_out_of_range');
    expect(target({ ...base, at: '9999-12-31T23:59:59.999Z' })).toBe('9999-12-31T23:59:59.999Z');
    expect(failure({ ...base, at: { date: '9999-12-31', time: '23:00', time_zone: 'America/New_York' } }).code).toBe('time_out_of_range');
  });

  it('the largest delay that still lands on 9999-12-31T23:59:59Z is accepted', () => {
    const seconds = Math.floor((Date.parse('9999-12-31T23:59:59.999Z') - T0) / 1000);
    expect(target({ ...base, after_seconds: seconds })).toBe('9999-12-31T23:59:59.000Z');
    expect(failure({ ...base, after_seconds: seconds + 1 }).code).toBe('time_out_of_range');
  });
});
