// Differential test of nextCronAfter against the project's brute-force oracle, for random
// expressions in every accepted zone at instants within a day of a DST transition (fewer cases
// under `npm test` than under `npm run stress`).
import { runs } from '../../support/runs.ts';
import { checkNextAgainstOracle, nearTransitionCase, SEED } from './oracleCases.ts';

const CASES = runs({ short: 1_500, long: 7_000 });

it(`nextCronAfter equals the oracle near DST transitions in every zone (${CASES} cases)`, () => {
  const { agreed, impossible } = checkNextAgainstOracle(nearTransitionCase, SEED, CASES);
  console.log(`cron differential near DST transitions: ${agreed} cases agreed with the oracle (${impossible} impossible rules)`);
  expect(agreed).toBeGreaterThanOrEqual(CASES * 0.9);
}, 180_000);
