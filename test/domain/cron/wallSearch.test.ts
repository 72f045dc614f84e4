// The field-by-field wall-clock search, checked against a minute-by-minute scan of a few days of
// wall time (no time zone involved): the first match at or after a wall minute, and the last at
// or before one, within bounds.
import fc from 'fast-check';
import { civilFromDays } from '../../../src/domain/time/cron/civil.ts';
import type { CronSpec } from '../../../src/domain/time/cron/index.ts';
import { cronDateMatches, parseCron } from '../../../src/domain/time/cron/index.ts';
import { firstMatchingWall, lastMatchingWall } from '../../../src/domain/time/cron/wallSearch.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../../src/domain/time/instant.ts';
import { typicalCronExpression } from './arbitraries.ts';
import { SEED } from './oracleCases.ts';

function matchesWall(spec: CronSpec, wall: number): boolean {
  const days = Math.floor(wall / DAY_MS);
  const { year, month, day } = civilFromDays(days, { year: 0, month: 0, day: 0 });
  const inDay = wall - days * DAY_MS;
  const hour = Math.floor(inDay / HOUR_MS);
  const minute = Math.floor((inDay % HOUR_MS) / MINUTE_MS);
  return cronDateMatches(spec, year, month, day) && spec.hour.values.includes(hour) && spec.minute.values.includes(minute);
}

const SPAN_MS = 4 * DAY_MS;
const wallArb = fc
  .tuple(fc.integer({ min: Date.UTC(1, 0, 1) / DAY_MS, max: Date.UTC(9999, 0, 1) / DAY_MS }), fc.integer({ min: 0, max: DAY_MS - 1 }))
  .map(([day, ms]) => day * DAY_MS + ms);

describe('wall-clock field search', () => {
  it('firstMatchingWall equals a minute-by-minute scan over four days', () => {
    fc.assert(
      fc.property(typicalCronExpression, wallArb, (expression, from) => {
        const spec = parseCron(expression);
        const limit = from + SPAN_MS;
        let expected = Number.NaN;
        for (let w = Math.ceil(from / MINUTE_MS) * MINUTE_MS; w < limit; w += MINUTE_MS) {
          if (matchesWall(spec, w)) {
            expected = w;
            break;
          }
        }
        expect(firstMatchingWall(spec, from, limit)).toBe(expected);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('lastMatchingWall equals a minute-by-minute scan over four days', () => {
    fc.assert(
      fc.property(typicalCronExpression, wallArb, (expression, to) => {
        const spec = parseCron(expression);
        const floor = to - SPAN_MS;
        let expected = Number.NaN;
        for (let w = Math.floor(to / MINUTE_MS) * MINUTE_MS; w >= floor; w -= MINUTE_MS) {
          if (matchesWall(spec, w)) {
            expected = w;
            break;
          }
        }
        expect(lastMatchingWall(spec, to, floor)).toBe(expected);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('0 0 29 2 * from 2025-03-01 reaches 2028-02-29 with a distant limit, and nothing before a near one', () => {
    const spec = parseCron('0 0 29 2 *');
    const from = Date.UTC(2025, 2, 1);
    expect(firstMatchingWall(spec, from, Date.UTC(2100, 0, 1))).toBe(Date.UTC(2028, 1, 29));
    expect(firstMatchingWall(spec, from, Date.UTC(2028, 1, 29))).toBeNaN();
    expect(lastMatchingWall(spec, Date.UTC(2028, 1, 28), Date.UTC(2020, 0, 1))).toBe(Date.UTC(2024, 1, 29));
    expect(lastMatchingWall(spec, Date.UTC(2028, 1, 28), Date.UTC(2024, 1, 29, 0, 0, 0, 1))).toBeNaN();
  });
});
