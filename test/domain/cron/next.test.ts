// nextCronAfter: the first firing instant strictly after an instant, under the day rule and the
// wall-clock rules of docs/selectors.md (gaps skipped, repeated wall times fire once at the earlier
// instant), in named zones. Expected instants are worked out by hand in each title's terms.
import { cronCanMatch, nextCronAfter, parseCron } from '../../../src/domain/time/cron/index.ts';
import { zoneRules } from '../../../src/domain/time/zoneRules.ts';

function next(expression: string, zone: string, after: string | number): string | null {
  const at = typeof after === 'number' ? after : Date.parse(after);
  const ms = nextCronAfter(parseCron(expression), zoneRules(zone), at);
  return ms === null ? null : new Date(ms).toISOString();
}

describe('nextCronAfter: first targets of known rules', () => {
  // [expression, zone, after, expected]
  const table: Array<[string, string, string, string]> = [
    ['0 0 */2 * 1', 'UTC', '2027-01-01T12:00:00.000Z', '2027-01-11T00:00:00.000Z'],
    ['0 0 1-31/2 * 1', 'UTC', '2027-01-01T12:00:00.000Z', '2027-01-03T00:00:00.000Z'],
    ['0 0 * * 1', 'UTC', '2027-01-01T12:00:00.000Z', '2027-01-04T00:00:00.000Z'],
    ['0 0 1-31 * 1', 'UTC', '2027-01-01T12:00:00.000Z', '2027-01-02T00:00:00.000Z'],
    ['0 0 13 * 5', 'UTC', '2027-01-01T12:00:00.000Z', '2027-01-08T00:00:00.000Z'],
    ['0 0 */13 * 5', 'UTC', '2027-01-01T12:00:00.000Z', '2027-05-14T00:00:00.000Z'],
    ['0 0 29 2 *', 'UTC', '2027-01-01T12:00:00.000Z', '2028-02-29T00:00:00.000Z'],
    ['0 0 * * 7', 'UTC', '2027-01-01T12:00:00.000Z', '2027-01-03T00:00:00.000Z'],
    ['* * * * *', 'UTC', '2030-01-01T08:00:00.000Z', '2030-01-01T08:01:00.000Z'],
    ['* * * * *', 'UTC', '2030-01-01T08:00:30.250Z', '2030-01-01T08:01:00.000Z'],
    ['0 8 * * *', 'UTC', '2030-01-01T08:00:00.000Z', '2030-01-02T08:00:00.000Z'],
    ['30 2 * * *', 'America/New_York', '2027-03-13T12:00:00.000Z', '2027-03-15T06:30:00.000Z'],
    ['0 * * * *', 'America/New_York', '2027-03-14T06:30:00.000Z', '2027-03-14T07:00:00.000Z'],
    ['59 1 * * *', 'America/New_York', '2027-03-14T06:00:00.000Z', '2027-03-14T06:59:00.000Z'],
    ['30 1 * * *', 'America/New_York', '2027-11-07T04:00:00.000Z', '2027-11-07T05:30:00.000Z'],
    ['30 1 * * *', 'America/New_York', '2027-11-07T05:30:00.000Z', '2027-11-08T06:30:00.000Z'],
    ['*/20 1 7 11 *', 'America/New_York', '2027-11-07T05:00:00.000Z', '2027-11-07T05:20:00.000Z'],
    ['*/20 1 7 11 *', 'America/New_York', '2027-11-07T05:45:00.000Z', '2028-11-07T06:00:00.000Z'],
    ['*/15 * * * *', 'America/New_York', '2027-11-07T05:50:00.000Z', '2027-11-07T07:00:00.000Z'],
    ['30 1 * * *', 'Europe/London', '2027-03-27T12:00:00.000Z', '2027-03-29T00:30:00.000Z'],
    ['30 1 * * *', 'Europe/London', '2027-10-30T12:00:00.000Z', '2027-10-31T00:30:00.000Z'],
    ['30 1 * * *', 'Europe/London', '2027-10-31T00:30:00.000Z', '2027-11-01T01:30:00.000Z'],
    ['*/30 1 * * 0', 'Europe/London', '2027-10-31T00:45:00.000Z', '2027-11-07T01:00:00.000Z'],
    ['0 2 * * *', 'Europe/London', '2027-03-28T00:30:00.000Z', '2027-03-28T01:00:00.000Z'],
    ['15 2 * * *', 'Australia/Lord_Howe', '2027-10-02T00:00:00.000Z', '2027-10-03T15:15:00.000Z'],
    ['*/10 2 3 10 *', 'Australia/Lord_Howe', '2027-10-02T15:00:00.000Z', '2027-10-02T15:30:00.000Z'],
    ['45 1 * * *', 'Australia/Lord_Howe', '2027-04-03T14:00:00.000Z', '2027-04-03T14:45:00.000Z'],
    ['45 1 * * *', 'Australia/Lord_Howe', '2027-04-03T14:50:00.000Z', '2027-04-04T15:15:00.000Z'],
    ['*/20 1 4 4 *', 'Australia/Lord_Howe', '2027-04-03T14:45:00.000Z', '2028-04-03T14:30:00.000Z'],
    ['0 9 * * 1-5', 'Asia/Kolkata', '2027-01-01T12:00:00.000Z', '2027-01-04T03:30:00.000Z'],
    ['0 9 * * 1-5', 'Asia/Calcutta', '2027-01-01T12:00:00.000Z', '2027-01-04T03:30:00.000Z'],
    ['*/45 */5 * * *', 'Asia/Kolkata', '2027-06-15T10:07:00.000Z', '2027-06-15T10:15:00.000Z'],
    ['30 23 31 12 *', 'Asia/Kolkata', '2027-06-15T10:07:00.000Z', '2027-12-31T18:00:00.000Z'],
  ];
  for (const [expression, zone, after, expected] of table) {
    it(`${expression} in ${zone} after ${after} fires at ${expected}`, () => {
      expect(next(expression, zone, after)).toBe(expected);
    });
  }
});

describe('nextCronAfter: day rule', () => {
  it('0 0 */2 * 1 in UTC needs an odd day AND a Monday (dom is a star field)', () => {
    expect(next('0 0 */2 * 1', 'UTC', '2027-01-11T00:00:00.000Z')).toBe('2027-01-25T00:00:00.000Z');
  });

  it('0 0 13 * 5 in UTC fires on Fridays OR on the 13th (neither is a star field)', () => {
    expect(next('0 0 13 * 5', 'UTC', '2027-01-08T00:00:00.000Z')).toBe('2027-01-13T00:00:00.000Z');
    expect(next('0 0 13 * 5', 'UTC', '2027-01-13T00:00:00.000Z')).toBe('2027-01-15T00:00:00.000Z');
  });

  it('0 0 29 2 */7 in UTC (Feb 29 on a Sunday) skips 28 years to 2060', () => {
    expect(next('0 0 29 2 */7', 'UTC', '2033-01-01T00:00:00.000Z')).toBe('2060-02-29T00:00:00.000Z');
  });

  it('0 0 */28 2 1 in UTC (Feb 1 or Feb 29, on a Monday) finds 2038-02-01', () => {
    expect(next('0 0 */28 2 1', 'UTC', '2030-01-01T00:00:00.000Z')).toBe('2038-02-01T00:00:00.000Z');
  });
});

describe('nextCronAfter: gaps, repeats and odd offsets', () => {
  it('30 2 8-14 3 */7 in America/New_York (second Sunday of March, 02:30) fired before 2007 only', () => {
    expect(next('30 2 8-14 3 */7', 'America/New_York', '2000-01-01T00:00:00.000Z')).toBe('2000-03-12T07:30:00.000Z');
    expect(next('30 2 8-14 3 */7', 'America/New_York', '2007-01-01T00:00:00.000Z')).toBeNull();
  });

  it('30 0 22 3 * in Asia/Tehran skips 2021 and 2022 (DST began at 00:00) and fires in 2023', () => {
    expect(next('30 0 22 3 *', 'Asia/Tehran', '2021-03-01T00:00:00.000Z')).toBe('2023-03-21T21:00:00.000Z');
  });

  it('0 0 * * * in America/Santiago skips 2027-09-05, whose midnight does not exist', () => {
    expect(next('0 0 * * *', 'America/Santiago', '2027-09-04T12:00:00.000Z')).toBe('2027-09-06T03:00:00.000Z');
  });

  it('*/10 2 26 3 * in Europe/Paris skips 2028-03-26 (the whole 02:00 hour is in the gap)', () => {
    expect(next('*/10 2 26 3 *', 'Europe/Paris', '2028-03-25T12:00:00.000Z')).toBe('2029-03-26T00:00:00.000Z');
  });

  it('0 12 30 12 * in Pacific/Apia skips 2011-12-30, a calendar date the zone left out', () => {
    expect(next('0 12 30 12 *', 'Pacific/Apia', '2011-12-01T00:00:00.000Z')).toBe('2012-12-29T22:00:00.000Z');
  });

  it('0 0 * * * in Asia/Kathmandu (+05:45) fires at 18:15Z', () => {
    expect(next('0 0 * * *', 'Asia/Kathmandu', '2027-01-01T00:00:00.000Z')).toBe('2027-01-01T18:15:00.000Z');
  });

  it('0 12 * * * in America/New_York before 1883 fires at local mean time noon (-04:56:02)', () => {
    expect(next('0 12 * * *', 'America/New_York', '1880-01-01T00:00:00.000Z')).toBe('1880-01-01T16:56:02.000Z');
  });

  it('0 12 * * * in America/New_York on 1883-11-18 fires once although noon repeats when railway time starts', () => {
    expect(next('0 12 * * *', 'America/New_York', '1883-11-18T16:00:00.000Z')).toBe('1883-11-18T16:56:02.000Z');
    expect(next('0 12 * * *', 'America/New_York', '1883-11-18T16:56:02.000Z')).toBe('1883-11-19T17:00:00.000Z');
  });

  it('0 0 1 * * in Europe/Paris in 1600 fires at local mean time midnight (+00:09:21)', () => {
    expect(next('0 0 1 * *', 'Europe/Paris', '1600-01-01T00:00:00.000Z')).toBe('1600-01-31T23:50:39.000Z');
  });

  it('0 9 * * 1-5 in Europe/Berlin in 2400 follows the same yearly rules', () => {
    expect(next('0 9 * * 1-5', 'Europe/Berlin', '2400-03-01T00:00:00.000Z')).toBe('2400-03-01T08:00:00.000Z');
    expect(next('0 9 * * 1-5', 'Europe/Berlin', '2400-07-01T00:00:00.000Z')).toBe('2400-07-03T07:00:00.000Z');
  });
});

describe('nextCronAfter: strictly after, minute resolution, range ends', () => {
  it('* * * * * in UTC: a firing instant itself is not "after"', () => {
    expect(next('* * * * *', 'UTC', '2030-01-01T08:01:00.000Z')).toBe('2030-01-01T08:02:00.000Z');
    expect(next('* * * * *', 'UTC', Date.parse('2030-01-01T08:01:00.000Z') - 1)).toBe('2030-01-01T08:01:00.000Z');
  });

  it('59 23 31 12 * in UTC fires at 9999-12-31T23:59Z, the last minute there is, then never', () => {
    expect(next('59 23 31 12 *', 'UTC', '9999-12-31T23:58:00.000Z')).toBe('9999-12-31T23:59:00.000Z');
    expect(next('59 23 31 12 *', 'UTC', '9999-12-31T23:59:00.000Z')).toBeNull();
  });

  it('0 0 1 1 * in Asia/Tokyo fires at local 10000-01-01, still UTC year 9999', () => {
    expect(next('0 0 1 1 *', 'Asia/Tokyo', '9999-06-01T00:00:00.000Z')).toBe('9999-12-31T15:00:00.000Z');
  });

  it('0 0 1 1 * in America/New_York has no target after mid-9999 (local 10000-01-01 is UTC year 10000)', () => {
    expect(next('0 0 1 1 *', 'America/New_York', '9999-06-01T00:00:00.000Z')).toBeNull();
  });

  it('* * * * * in UTC from before year 1 starts at 0001-01-01T00:00Z', () => {
    expect(next('* * * * *', 'UTC', Date.parse('0000-06-01T00:00:00.000Z'))).toBe('0001-01-01T00:00:00.000Z');
  });

  it('a NaN instant has no next target', () => {
    expect(nextCronAfter(parseCron('* * * * *'), zoneRules('UTC'), Number.NaN)).toBeNull();
  });
});

describe('nextCronAfter: rules that can never match', () => {
  const impossible = ['0 0 30 2 *', '0 0 31 4,6,9,11 *', '0 0 30-31 2 */2', '0 0 31 2,4 */2', '* * 31 2 *'];
  for (const expression of impossible) {
    it(`${expression} in America/New_York has no target and is seen as impossible`, () => {
      expect(cronCanMatch(parseCron(expression))).toBe(false);
      expect(next(expression, 'America/New_York', '2027-01-01T00:00:00.000Z')).toBeNull();
    });
  }
});
