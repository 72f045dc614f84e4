// Calendar arithmetic on day numbers, checked against Date for ordinary years and by round trips
// for years 0-99 and before, which Date.UTC reads as 1900-1999.
import fc from 'fast-check';
import { civilFromDays, daysFromCivil, daysInMonth, isLeapYear, weekdayOf } from '../../../src/domain/time/cron/civil.ts';
import { DAY_MS } from '../../../src/domain/time/instant.ts';
import { SEED } from './oracleCases.ts';

describe('civil calendar arithmetic', () => {
  it('daysFromCivil and civilFromDays agree with Date from year 0 to 10000', () => {
    const first = Math.floor(Date.parse('0000-01-01T00:00:00Z') / DAY_MS);
    const last = Math.floor(Date.parse('+010000-12-31T00:00:00Z') / DAY_MS);
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), (days) => {
        const date = new Date(days * DAY_MS);
        const civil = civilFromDays(days, { year: 0, month: 0, day: 0 });
        expect(civil).toEqual({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() });
        expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days);
        expect(weekdayOf(days)).toBe(date.getUTCDay());
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });

  it('years before 1 round-trip and keep the weekday cycle', () => {
    for (let days = daysFromCivil(-401, 1, 1); days < daysFromCivil(1, 1, 1); days += 97) {
      const civil = civilFromDays(days, { year: 0, month: 0, day: 0 });
      expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days);
      expect(weekdayOf(days)).toBe(weekdayOf(days + 146_097));
    }
    expect(daysFromCivil(1970, 1, 1)).toBe(0);
    expect(weekdayOf(0)).toBe(4);
  });

  it('leap years and month lengths', () => {
    expect([1900, 2000, 2024, 2100, 2400, 0].map(isLeapYear)).toEqual([false, true, true, false, true, true]);
    expect(daysInMonth(2028, 2)).toBe(29);
    expect(daysInMonth(2027, 2)).toBe(28);
    expect([1, 4, 6, 9, 11, 12].map((m) => daysInMonth(2027, m))).toEqual([31, 30, 30, 30, 30, 31]);
  });
});
