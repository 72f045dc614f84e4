// latestCronAtOrBefore checked through the project's brute-force oracle (its forward search). For a window
// [notBefore, now], L = latest firing in it is characterised by: L lies in the window, L is a
// firing instant (the oracle's first firing after L - 1 is L), and no firing follows it inside
// the window (the oracle's first firing after L is past now). When L is null, the oracle's first
// firing at or after notBefore is past now. Fewer cases under `npm test` than under `npm run stress`.
import fc from 'fast-check';
import { latestCronAtOrBefore, parseCron } from '../../../src/domain/time/cron/index.ts';
import { DAY_MS, MINUTE_MS } from '../../../src/domain/time/instant.ts';
import { zoneRules } from '../../../src/domain/time/zoneRules.ts';
import { nextFiring } from '../../support/oracle/index.ts';
import { runs } from '../../support/runs.ts';
import { isoOrNull, nearTransitionCase, SEED, wideCase } from './oracleCases.ts';

const windowArb = fc.oneof(
  fc.integer({ min: 0, max: 3 * DAY_MS }),
  fc.integer({ min: 0, max: 60 * 24 * 60 }).map((m) => m * MINUTE_MS),
  fc.constantFrom(0, 1, MINUTE_MS),
);

const caseArb = fc.tuple(fc.oneof({ weight: 2, arbitrary: nearTransitionCase }, { weight: 1, arbitrary: wideCase }), windowArb);

const CASES = runs({ short: 600, long: 2_500 });

it(`latestCronAtOrBefore is the last firing of the window, by the oracle (${CASES} cases)`, () => {
  let found = 0;
  let empty = 0;
  fc.assert(
    fc.property(caseArb, ([{ expression, zone, instant: now }, window]) => {
      const notBefore = now - window;
      const latest = latestCronAtOrBefore(parseCron(expression), zoneRules(zone), now, notBefore);
      const after = (ms: number) => nextFiring({ kind: 'cron', expression, timeZone: zone }, ms);
      if (latest === null) {
        const first = after(notBefore - 1);
        expect(first === null || first > now, `a firing at ${isoOrNull(first)} lies in the window`).toBe(true);
        empty++;
        return;
      }
      expect(latest).toBeGreaterThanOrEqual(notBefore);
      expect(latest).toBeLessThanOrEqual(now);
      expect(isoOrNull(after(latest - 1)), 'the latest is a firing instant').toBe(isoOrNull(latest));
      const following = after(latest);
      expect(following === null || following > now, `a later firing at ${isoOrNull(following)} lies in the window`).toBe(true);
      found++;
    }),
    { seed: SEED + 2, numRuns: CASES },
  );
  console.log(`cron latest-in-window: ${found + empty} cases checked against the oracle (${found} with a firing, ${empty} without)`);
  expect(found).toBeGreaterThan(CASES / 5);
  expect(empty).toBeGreaterThan(CASES / 25);
}, 180_000);
