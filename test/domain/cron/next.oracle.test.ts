// Differential test of nextCronAfter against the project's brute-force oracle, for random
// expressions in every accepted zone at instants within a day of a DST transition.
import { checkNextAgainstOracle, nearTransitionCase, SEED } from './oracleCases.ts';

it('nextCronAfter equals the oracle near DST transitions in every zone (7000 cases)', () => {
  const { agreed, impossible } = checkNextAgainstOracle(nearTransitionCase, SEED, 7000);
  console.log(`cron differential near DST transitions: ${agreed} cases agreed with the oracle (${impossible} impossible rules)`);
  expect(agreed).toBeGreaterThanOrEqual(6500);
}, 180_000); // ~30-40 s alone; generous for a fully parallel `npm test`
