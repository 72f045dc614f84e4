// The reference oracle against hand-checked cases (DST gaps and overlaps in New York, London and
// Lord Howe, the end of year 9999), and its wall-time resolution against Temporal's own
// 'earlier' disambiguation and a minute-by-minute scan. The expected instants were worked out by
// hand from the zones' rules (and confirmed with Python's zoneinfo), not by running the oracle.
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { cronDateMatches, cronSets, latestFiringIn, nextFiring, nextFiringIso, type ReferenceRule, zoneOffsets } from './oracle/index.ts';

const NY = 'America/New_York';
const LONDON = 'Europe/London';
const LORD_HOWE = 'Australia/Lord_Howe';

const daily = (time: string, timeZone: string): ReferenceRule => ({ kind: 'daily', time, timeZone });
const cron = (expression: string, timeZone: string): ReferenceRule => ({ kind: 'cron', expression, timeZone });

describe('the reference oracle on hand-checked cases', () => {
  it.each<[string, ReferenceRule, string, string | null]>([
    // New York springs forward on 2027-03-14 at 02:00 EST → 03:00 EDT: 02:30 does not exist that day.
    ['NY daily 02:30 skips the gap day', daily('02:30:00', NY), '2027-03-13T08:00:00.000Z', '2027-03-15T06:30:00.000Z'],
    ['NY cron 30 2 * * * skips the gap day', cron('30 2 * * *', NY), '2027-03-14T05:00:00.000Z', '2027-03-15T06:30:00.000Z'],
    [
      'NY weekly Sunday 02:30 skips to the next Sunday',
      { kind: 'weekly', time: '02:30:00', timeZone: NY, weekdays: [7] },
      '2027-03-13T00:00:00.000Z',
      '2027-03-21T06:30:00.000Z',
    ],
    // New York falls back on 2027-11-07 at 02:00 EDT → 01:00 EST: 01:30 happens at 05:30Z and 06:30Z.
    [
      'NY daily 01:30 on the overlap day fires at the earlier instant',
      daily('01:30:00', NY),
      '2027-11-07T00:00:00.000Z',
      '2027-11-07T05:30:00.000Z',
    ],
    [
      'NY daily 01:30 does not fire again at the later instant',
      daily('01:30:00', NY),
      '2027-11-07T05:30:00.000Z',
      '2027-11-08T06:30:00.000Z',
    ],
    // London springs forward on 2027-03-28 at 01:00 GMT → 02:00 BST: 01:30 does not exist that day.
    ['London daily 01:30 skips the gap day', daily('01:30:00', LONDON), '2027-03-27T12:00:00.000Z', '2027-03-29T00:30:00.000Z'],
    // London falls back on 2027-10-31 at 02:00 BST → 01:00 GMT: 01:00-01:59 happen twice.
    ['London daily 01:30 fires at the BST instant', daily('01:30:00', LONDON), '2027-10-30T12:00:00.000Z', '2027-10-31T00:30:00.000Z'],
    [
      'London cron */20 1 fires no repeated wall time twice',
      cron('*/20 1 * * *', LONDON),
      '2027-10-31T00:45:00.000Z',
      '2027-11-01T01:00:00.000Z',
    ],
    // Lord Howe moves by half an hour: back 02:00 → 01:30 on 2027-04-04, forward 02:00 → 02:30 on 2027-10-03.
    [
      'Lord Howe daily 01:45 fires once on the overlap day',
      daily('01:45:00', LORD_HOWE),
      '2027-04-03T14:45:00.000Z',
      '2027-04-04T15:15:00.000Z',
    ],
    ['Lord Howe daily 02:15 skips the half-hour gap', daily('02:15:00', LORD_HOWE), '2027-10-02T12:00:00.000Z', '2027-10-03T15:15:00.000Z'],
    // The last instant a target may have is 9999-12-31T23:59:59.999Z.
    ['the last day of year 9999 still fires', daily('23:59:00', 'UTC'), '9999-12-30T23:59:00.000Z', '9999-12-31T23:59:00.000Z'],
    ['nothing fires after year 9999', daily('23:59:00', 'UTC'), '9999-12-31T23:59:00.000Z', null],
    ['a Feb 29 cron waits for the leap year', cron('0 12 29 2 *', 'UTC'), '2028-03-01T00:00:00.000Z', '2032-02-29T12:00:00.000Z'],
    // Day rule: both day fields restricted → either matches (the 13th or any Friday).
    ['a cron with both day fields matches either', cron('0 0 13 * 5', 'UTC'), '2027-01-01T00:00:00.000Z', '2027-01-08T00:00:00.000Z'],
  ])('%s', (_name, rule, after, expected) => {
    expect(nextFiringIso(rule, after)).toBe(expected);
  });

  it('latestFiringIn walks the firings of a window', () => {
    const rule = daily('01:30:00', NY);
    const from = Date.parse('2027-11-06T00:00:00.000Z');
    expect(latestFiringIn(rule, from, Date.parse('2027-11-07T06:00:00.000Z'))).toBe(Date.parse('2027-11-07T05:30:00.000Z'));
    expect(latestFiringIn(rule, from, Date.parse('2027-11-06T05:29:59.999Z'))).toBeNull();
  });

  it('reads the cron dialect: 7 is Sunday, a */ field is a star field', () => {
    const sets = cronSets('*/15 9-17 */2 1-12/3 1-7/2');
    expect([...sets.minutes]).toEqual([0, 15, 30, 45]);
    expect([...sets.months]).toEqual([1, 4, 7, 10]);
    expect([...sets.weekdays].sort()).toEqual([0, 1, 3, 5]);
    expect(sets.dayOfMonthIsStar).toBe(true);
    expect(cronDateMatches(sets, 1, 3, 1)).toBe(true);
    expect(cronDateMatches(sets, 1, 2, 1)).toBe(false);
    expect(() => cronSets('* * * * MON')).toThrow();
    expect(() => cronSets('5/15 * * * *')).toThrow();
  });
});

describe('the oracle resolves wall times as Temporal does', () => {
  const zones = [NY, LONDON, LORD_HOWE, 'Pacific/Apia', 'Asia/Kathmandu', 'America/Sao_Paulo', 'UTC'];

  it('the earliest instant of a wall time equals Temporal with disambiguation earlier, or none in a gap', () => {
    const wallArb = fc.record({
      zone: fc.constantFrom(...zones),
      wall: fc.integer({ min: Date.parse('1880-01-01T00:00:00Z'), max: Date.parse('2060-01-01T00:00:00Z') }),
    });
    fc.assert(
      fc.property(wallArb, ({ zone, wall }) => {
        const pdt = Temporal.Instant.fromEpochMilliseconds(wall).toZonedDateTimeISO('UTC').toPlainDateTime();
        const earlier = pdt.toZonedDateTime(zone, { disambiguation: 'earlier' });
        const exists = earlier.toPlainDateTime().equals(pdt);
        expect(zoneOffsets(zone).earliestInstantOf(wall)).toBe(exists ? earlier.epochMilliseconds : null);
      }),
      { seed: 20_271_231, numRuns: 400 },
    );
  });

  it('near transitions too: every fifth wall minute of a transition day', () => {
    for (const [zone, date] of [
      [NY, '2027-03-14'],
      [NY, '2027-11-07'],
      [LORD_HOWE, '2027-04-04'],
      ['Pacific/Apia', '2011-12-30'], // a whole skipped date
    ] as const) {
      const midnight = Date.parse(`${date}T00:00:00Z`);
      for (let wall = midnight; wall < midnight + 86_400_000; wall += 5 * 60_000) {
        const pdt = Temporal.Instant.fromEpochMilliseconds(wall).toZonedDateTimeISO('UTC').toPlainDateTime();
        const earlier = pdt.toZonedDateTime(zone, { disambiguation: 'earlier' });
        const expected = earlier.toPlainDateTime().equals(pdt) ? earlier.epochMilliseconds : null;
        expect(zoneOffsets(zone).earliestInstantOf(wall), `${zone} ${pdt}`).toBe(expected);
      }
    }
  });

  it('a cron firing equals a minute-by-minute scan of instants over a day around transitions', () => {
    const caseArb = fc.record({
      zone: fc.constantFrom(NY, LONDON, LORD_HOWE),
      start: fc.constantFrom(
        '2027-03-13T20:00:00Z',
        '2027-03-27T20:00:00Z',
        '2027-04-03T10:00:00Z',
        '2027-10-30T20:00:00Z',
        '2027-11-06T20:00:00Z',
      ),
      expression: fc.constantFrom('* * * * *', '*/7 * * * *', '30 1-3 * * *', '0,15,45 2 * * *', '59 0-2 * * 0'),
    });
    fc.assert(
      fc.property(caseArb, ({ zone, start, expression }) => {
        const after = Date.parse(start);
        const sets = cronSets(expression);
        let scanned: number | null = null;
        for (let t = after + 60_000 - (after % 60_000); t <= after + 86_400_000; t += 60_000) {
          const z = Temporal.Instant.fromEpochMilliseconds(t).toZonedDateTimeISO(zone);
          if (z.second !== 0 || !sets.minutes.has(z.minute) || !sets.hours.has(z.hour)) continue;
          if (!cronDateMatches(sets, z.month, z.day, z.dayOfWeek % 7)) continue;
          // A repeated wall time fires only at its first instant.
          if (z.toPlainDateTime().toZonedDateTime(zone, { disambiguation: 'earlier' }).epochMilliseconds !== t) continue;
          scanned = t;
          break;
        }
        const found = nextFiring(cron(expression, zone), after);
        if (scanned !== null) expect(found).toBe(scanned);
        else expect(found === null || found > after + 86_400_000).toBe(true);
      }),
      { seed: 7_003, numRuns: 30 },
    );
  });
});
