// Differential test of nextCronAfter against the project's brute-force oracle, for random
// expressions in every accepted zone at instants across history (local mean time), this era, and
// far years up to the end of 9999.
import { checkNextAgainstOracle, SEED, wideCase } from './oracleCases.ts';

it('nextCronAfter equals the oracle from 1600 to 9999 in every zone (6000 cases)', () => {
  const { agreed, impossible } = checkNextAgainstOracle(wideCase, SEED + 1, 6000);
  console.log(`cron differential across years 1600-9999: ${agreed} cases agreed with the oracle (${impossible} impossible rules)`);
  expect(agreed).toBeGreaterThanOrEqual(5500);
}, 180_000); // ~30-40 s alone; generous for a fully parallel `npm test`
