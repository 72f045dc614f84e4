// The day rule and static feasibility: cronDateMatches, cronCanMatch, and the day searches inside
// a month, checked against a direct day-by-day reading of the rule.
import fc from 'fast-check';
import { daysFromCivil, daysInMonth, weekdayOf } from '../../../src/domain/time/cron/civil.ts';
import { cronCanMatch, cronDateMatches, nextCronAfter, parseCron } from '../../../src/domain/time/cron/index.ts';
import { nextMatchingDay, previousMatchingDay } from '../../../src/domain/time/cron/match.ts';
import { zoneRules } from '../../../src/domain/time/zoneRules.ts';
import { cronExpression } from './arbitraries.ts';
import { feasibleByBruteForce, SEED } from './oracleCases.ts';

describe('cronDateMatches', () => {
  it('0 0 */2 * 1: a star day-of-month field needs both fields (odd day AND Monday)', () => {
    const spec = parseCron('0 0 */2 * 1');
    expect(cronDateMatches(spec, 2027, 1, 11)).toBe(true); // odd Monday
    expect(cronDateMatches(spec, 2027, 1, 4)).toBe(false); // even Monday
    expect(cronDateMatches(spec, 2027, 1, 13)).toBe(false); // odd Wednesday
  });

  it('0 0 1-31/2 * 1: with neither a star field, either field is enough', () => {
    const spec = parseCron('0 0 1-31/2 * 1');
    expect(cronDateMatches(spec, 2027, 1, 4)).toBe(true);
    expect(cronDateMatches(spec, 2027, 1, 13)).toBe(true);
    expect(cronDateMatches(spec, 2027, 1, 12)).toBe(false);
  });

  it('0 0 * * 1-5: a star day-of-month field leaves the weekdays to decide', () => {
    const spec = parseCron('0 0 * * 1-5');
    expect(cronDateMatches(spec, 2027, 1, 1)).toBe(true); // Friday
    expect(cronDateMatches(spec, 2027, 1, 2)).toBe(false); // Saturday
  });

  it('0 0 31 * *: dates that do not exist never match', () => {
    const spec = parseCron('0 0 31 * *');
    expect(cronDateMatches(spec, 2027, 4, 31)).toBe(false);
    expect(cronDateMatches(spec, 2027, 5, 31)).toBe(true);
    expect(cronDateMatches(parseCron('0 0 29 2 *'), 2100, 2, 29)).toBe(false);
    expect(cronDateMatches(parseCron('0 0 29 2 *'), 2000, 2, 29)).toBe(true);
  });
});

describe('cronCanMatch', () => {
  const table: Array<[string, boolean]> = [
    ['0 0 30 2 *', false],
    ['0 0 31 4,6,9,11 *', false],
    ['0 0 30,31 2 */3', false],
    ['0 0 31 2 1', true], // either rule: every Monday in February
    ['0 0 29 2 *', true],
    ['0 0 29 2 */7', true],
    ['0 0 31 2,3 *', true],
    ['0 0 */30 2 *', true], // {1, 31}: February 1st
    ['* * * * *', true],
  ];
  for (const [expression, expected] of table) {
    it(`${expression} -> ${expected}`, () => {
      expect(cronCanMatch(parseCron(expression))).toBe(expected);
    });
  }

  it('agrees with a brute force on month-end rules, and impossible ones have no next target', () => {
    const subset = (values: number[]) => fc.subarray(values, { minLength: 1 }).map((picked) => picked.join(','));
    const monthEnd = fc
      .tuple(subset([29, 30, 31]), subset([2, 4, 6, 9, 11]), fc.constantFrom('*', '*/2', '*/7', '1-5'))
      .map(([days, months, dow]) => `0 0 ${days} ${months} ${dow}`);
    let impossible = 0;
    fc.assert(
      fc.property(monthEnd, (expression) => {
        const spec = parseCron(expression);
        expect(cronCanMatch(spec)).toBe(feasibleByBruteForce(expression));
        if (!cronCanMatch(spec)) {
          impossible++;
          expect(nextCronAfter(spec, zoneRules('Europe/Berlin'), Date.UTC(2027, 0, 1))).toBeNull();
        }
      }),
      { seed: SEED, numRuns: 500 },
    );
    expect(impossible).toBeGreaterThan(20);
  });

  it('agrees with a brute force over every (month, day, weekday) for random expressions', () => {
    fc.assert(
      fc.property(cronExpression, (expression) => {
        expect(cronCanMatch(parseCron(expression))).toBe(feasibleByBruteForce(expression));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });
});

describe('day searches inside a month', () => {
  const monthArb = fc.record({ year: fc.integer({ min: 1, max: 9999 }), month: fc.integer({ min: 1, max: 12 }) });

  it('nextMatchingDay / previousMatchingDay equal a day-by-day scan for random expressions and months', () => {
    fc.assert(
      fc.property(cronExpression, monthArb, fc.integer({ min: 0, max: 33 }), (expression, { year, month }, from) => {
        const spec = parseCron(expression);
        const length = daysInMonth(year, month);
        const matches = (day: number) => {
          const dom = spec.dayOfMonth.values.includes(day);
          const dow = spec.dayOfWeek.values.includes(weekdayOf(daysFromCivil(year, month, day)));
          return spec.domStar || spec.dowStar ? dom && dow : dom || dow;
        };
        let forward = -1;
        for (let day = Math.max(from, 1); day <= length; day++) {
          if (matches(day)) {
            forward = day;
            break;
          }
        }
        let backward = -1;
        for (let day = Math.min(from, length); day >= 1; day--) {
          if (matches(day)) {
            backward = day;
            break;
          }
        }
        expect(nextMatchingDay(spec, year, month, Math.max(from, 1))).toBe(forward);
        expect(previousMatchingDay(spec, year, month, from)).toBe(backward);
      }),
      { seed: SEED, numRuns: 4000 },
    );
  });
});
