// Differential test of nextCronAfter against the project's brute-force oracle, for random
// expressions in every accepted zone at instants across history (local mean time), this era, and
// far years up to the end of 9999 (fewer cases under `npm test` than under `npm run stress`).
import { runs } from '../../support/runs.ts';
import { checkNextAgainstOracle, SEED, wideCase } from './oracleCases.ts';

const CASES = runs({ short: 1_500, long: 6_000 });

it(`nextCronAfter equals the oracle from 1600 to 9999 in every zone (${CASES} cases)`, () => {
  const { agreed, impossible } = checkNextAgainstOracle(wideCase, SEED + 1, CASES);
  console.log(`cron differential across years 1600-9999: ${agreed} cases agreed with the oracle (${impossible} impossible rules)`);
  expect(agreed).toBeGreaterThanOrEqual(CASES * 0.9);
}, 180_000);
