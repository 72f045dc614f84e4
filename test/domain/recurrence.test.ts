// Targets of every rule kind: first target, next target after a delivery, latest missed
// occurrence. Daily and weekly are pinned on the DST cases of docs/selectors.md (America/New_York gap and
// overlap, Pacific/Apia's skipped date, Australia/Lord_Howe's half-hour shift) and at the ends
// of the supported range; the property tests live in recurrence.property.test.ts.

import type { Rule } from '../../src/domain/tasks/types.ts';
import { firstTarget, latestOccurrence, nextTargetAfter } from '../../src/domain/time/recurrence.ts';

const at = (text: string) => Date.parse(text);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const MIN = 60_000;
const DAY = 86_400_000;

const daily = (time: string, timeZone: string): Rule => ({ kind: 'daily', time, timeZone });
const weekly = (time: string, timeZone: string, weekdays: number[]): Rule => ({ kind: 'weekly', time, timeZone, weekdays });
const cron = (expression: string, timeZone: string): Rule => ({ kind: 'cron', expression, timeZone });

describe('firstTarget: one-shots and every', () => {
  const now = at('2030-01-01T08:00:00Z');

  it('after 600 s is now + 600 s; at is the instant; every 300 s is now + 300 s', () => {
    expect(iso(firstTarget({ kind: 'after', afterSeconds: 600 }, now))).toBe('2030-01-01T08:10:00.000Z');
    expect(iso(firstTarget({ kind: 'at', at: at('2031-05-05T05:05:05.005Z') }, now))).toBe('2031-05-05T05:05:05.005Z');
    expect(iso(firstTarget({ kind: 'every', everySeconds: 300 }, now))).toBe('2030-01-01T08:05:00.000Z');
  });

  it('targets beyond 9999-12-31T23:59:59.999Z are null', () => {
    expect(firstTarget({ kind: 'after', afterSeconds: Number.MAX_SAFE_INTEGER }, now)).toBeNull();
    expect(firstTarget({ kind: 'every', everySeconds: 8000 * 365 * 86400 }, now)).toBeNull();
    expect(firstTarget({ kind: 'at', at: at('9999-12-31T23:59:59.999Z') + 1 }, now)).toBeNull();
    expect(iso(firstTarget({ kind: 'after', afterSeconds: 1 }, at('9999-12-31T23:59:58.999Z')))).toBe('9999-12-31T23:59:59.999Z');
  });
});

describe('daily and weekly: DST rules', () => {
  it('daily 02:30:00 America/New_York skips the 2027-03-14 gap date', () => {
    expect(iso(firstTarget(daily('02:30:00', 'America/New_York'), at('2027-03-13T08:00:00Z')))).toBe('2027-03-15T06:30:00.000Z');
  });

  it('daily 01:30:00 America/New_York fires once on the 2027-11-07 overlap, at the earlier (EDT) instant', () => {
    const rule = daily('01:30:00', 'America/New_York');
    expect(iso(firstTarget(rule, at('2027-11-07T04:00:00Z')))).toBe('2027-11-07T05:30:00.000Z');
    // between the two readings of 01:30 the next firing is the next day, not the later (EST) 01:30
    expect(iso(firstTarget(rule, at('2027-11-07T05:45:00Z')))).toBe('2027-11-08T06:30:00.000Z');
    expect(iso(nextTargetAfter(rule, at('2027-11-07T05:30:00Z'), at('2027-11-07T05:30:00Z')))).toBe('2027-11-08T06:30:00.000Z');
  });

  it('daily 09:00:00 Pacific/Apia skips 2011-12-30, the date the zone never had', () => {
    const rule = daily('09:00:00', 'Pacific/Apia');
    expect(iso(firstTarget(rule, at('2011-12-29T19:00:00Z')))).toBe('2011-12-30T19:00:00.000Z');
    expect(iso(firstTarget(rule, at('2011-12-29T18:59:59.999Z')))).toBe('2011-12-29T19:00:00.000Z');
    expect(iso(latestOccurrence(rule, at('2011-12-28T19:00:00Z'), at('2011-12-30T18:00:00Z')))).toBe('2011-12-29T19:00:00.000Z');
  });

  it('daily 02:15:00 Australia/Lord_Howe skips the 30-minute gap of 2027-10-03', () => {
    expect(iso(firstTarget(daily('02:15:00', 'Australia/Lord_Howe'), at('2027-10-02T12:00:00Z')))).toBe('2027-10-03T15:15:00.000Z');
  });

  it('weekly 09:00:00 on [1,3] Asia/Shanghai from a Tuesday evening is Wednesday', () => {
    expect(iso(firstTarget(weekly('09:00:00', 'Asia/Shanghai', [1, 3]), at('2030-01-01T08:00:00Z')))).toBe('2030-01-02T01:00:00.000Z');
    expect(iso(firstTarget(weekly('09:00:00', 'Asia/Shanghai', [7]), at('2030-01-01T08:00:00Z')))).toBe('2030-01-06T01:00:00.000Z');
  });

  it('weekly 02:30:00 on [7] America/New_York skips the gap Sunday and waits a whole week', () => {
    expect(iso(firstTarget(weekly('02:30:00', 'America/New_York', [7]), at('2027-03-13T08:00:00Z')))).toBe('2027-03-21T06:30:00.000Z');
  });

  it('daily with a fraction: 07:05:09.500 UTC', () => {
    expect(iso(firstTarget(daily('07:05:09.500', 'UTC'), at('2030-01-01T07:05:09.500Z')))).toBe('2030-01-02T07:05:09.500Z');
    expect(iso(firstTarget(daily('07:05:09.500', 'UTC'), at('2030-01-01T07:05:09.499Z')))).toBe('2030-01-01T07:05:09.500Z');
  });
});

describe('daily and weekly: ends of the range', () => {
  it('daily 23:59:59.999 UTC reaches 9999-12-31T23:59:59.999Z and then has no further target', () => {
    const rule = daily('23:59:59.999', 'UTC');
    const last = at('9999-12-31T23:59:59.999Z');
    expect(firstTarget(rule, last - 1)).toBe(last);
    expect(nextTargetAfter(rule, last, last)).toBeNull();
  });

  it('daily 09:00:00 Pacific/Kiritimati (+14): local 10000-01-01 09:00 is still a UTC instant in range, 10000-01-02 is not', () => {
    const rule = daily('09:00:00', 'Pacific/Kiritimati');
    expect(iso(firstTarget(rule, at('9999-12-30T19:00:00Z')))).toBe('9999-12-31T19:00:00.000Z');
    expect(firstTarget(rule, at('9999-12-31T19:00:00Z'))).toBeNull();
  });

  it('weekly on a weekday that does not come again before year 10000 is null', () => {
    // 9999-12-31 is a Friday; from then on no Monday is left
    expect(firstTarget(weekly('09:00:00', 'UTC', [1]), at('9999-12-27T10:00:00Z'))).toBeNull();
  });

  it('daily 12:00:00 UTC in year 0001 works from the first representable instant', () => {
    expect(iso(firstTarget(daily('12:00:00', 'UTC'), at('0001-01-01T00:00:00Z')))).toBe('0001-01-01T12:00:00.000Z');
    expect(iso(latestOccurrence(daily('12:00:00', 'UTC'), at('0001-01-01T12:00:00Z'), at('0001-01-03T13:00:00Z')))).toBe(
      '0001-01-03T12:00:00.000Z',
    );
  });
});

describe('nextTargetAfter', () => {
  it('every 600 s stays on the grid anchored at the committed target', () => {
    const rule: Rule = { kind: 'every', everySeconds: 600 };
    const committed = at('2030-01-01T08:10:00Z');
    expect(iso(nextTargetAfter(rule, committed, committed))).toBe('2030-01-01T08:20:00.000Z');
    expect(iso(nextTargetAfter(rule, committed, committed + 35 * MIN))).toBe('2030-01-01T08:50:00.000Z');
    expect(iso(nextTargetAfter(rule, committed, committed + 40 * MIN))).toBe('2030-01-01T09:00:00.000Z');
  });

  it('every: never at or before the committed target when the clock moved backwards', () => {
    const committed = at('2030-01-01T08:10:00Z');
    expect(iso(nextTargetAfter({ kind: 'every', everySeconds: 600 }, committed, committed - DAY))).toBe('2030-01-01T08:20:00.000Z');
    expect(iso(nextTargetAfter(daily('08:10:00', 'UTC'), committed, committed - DAY))).toBe('2030-01-02T08:10:00.000Z');
  });

  it('every: null when the next grid point is beyond year 9999', () => {
    const committed = at('9999-12-31T23:50:00Z');
    expect(nextTargetAfter({ kind: 'every', everySeconds: 600 }, committed, committed)).toBeNull();
  });

  it('one-shots have no further target', () => {
    expect(nextTargetAfter({ kind: 'after', afterSeconds: 60 }, 0, 0)).toBeNull();
    expect(nextTargetAfter({ kind: 'at', at: 0 }, 0, 0)).toBeNull();
  });

  it('daily 09:00:00 Asia/Shanghai after missed days: the first firing after now', () => {
    const committed = at('2030-01-02T01:00:00Z');
    expect(iso(nextTargetAfter(daily('09:00:00', 'Asia/Shanghai'), committed, committed + 3 * DAY + MIN))).toBe('2030-01-06T01:00:00.000Z');
  });

  it('cron */15 * * * * in UTC after a delivery: the next quarter hour after now', () => {
    const committed = at('2030-01-01T08:15:00Z');
    expect(iso(nextTargetAfter(cron('*/15 * * * *', 'UTC'), committed, committed + 20 * MIN))).toBe('2030-01-01T08:45:00.000Z');
  });
});

describe('latestOccurrence', () => {
  it('every 60 s: the latest grid point at or before now', () => {
    const rule: Rule = { kind: 'every', everySeconds: 60 };
    const committed = at('2030-01-01T08:01:00Z');
    expect(iso(latestOccurrence(rule, committed, committed))).toBe('2030-01-01T08:01:00.000Z');
    expect(iso(latestOccurrence(rule, committed, committed + 59_999))).toBe('2030-01-01T08:01:00.000Z');
    expect(iso(latestOccurrence(rule, committed, committed + 5 * MIN + 30_000))).toBe('2030-01-01T08:06:00.000Z');
  });

  it('daily 09:00:00 Asia/Shanghai missed for three days: the latest one', () => {
    const committed = at('2030-01-02T01:00:00Z');
    expect(iso(latestOccurrence(daily('09:00:00', 'Asia/Shanghai'), committed, committed + 3 * DAY + MIN))).toBe(
      '2030-01-05T01:00:00.000Z',
    );
  });

  it('weekly 09:00:00 on [1,3] UTC over a fortnight', () => {
    const committed = at('2030-01-02T09:00:00Z'); // Wednesday
    expect(iso(latestOccurrence(weekly('09:00:00', 'UTC', [1, 3]), committed, at('2030-01-15T08:00:00Z')))).toBe(
      '2030-01-14T09:00:00.000Z',
    );
  });

  it('a committed target is kept when no later firing exists up to now (or the rule no longer fires there)', () => {
    const committed = at('2030-01-02T01:00:00Z');
    expect(latestOccurrence(daily('09:00:00', 'Asia/Shanghai'), committed, committed + 1000)).toBe(committed);
    // the committed instant is not a firing of the rule (time-zone data changed): it is still kept
    const odd = at('2030-01-02T01:07:00Z');
    expect(latestOccurrence(daily('09:00:00', 'Asia/Shanghai'), odd, odd + 1000)).toBe(odd);
    expect(latestOccurrence({ kind: 'after', afterSeconds: 60 }, committed, committed + DAY)).toBe(committed);
    expect(latestOccurrence({ kind: 'every', everySeconds: 60 }, committed, committed - DAY)).toBe(committed);
  });

  it('cron 0 * * * * in Europe/London across the 2027-03-28 gap: the latest firing', () => {
    const committed = at('2027-03-28T00:00:00Z');
    expect(iso(latestOccurrence(cron('0 * * * *', 'Europe/London'), committed, at('2027-03-28T02:30:00Z')))).toBe(
      '2027-03-28T02:00:00.000Z',
    );
  });
});
