// `npm run stress [trials] [seed]`: every long-running check, one after another — first the test
// suite in its long form (`npm run test:long`: AGENT_SCHEDULE_LONG=1, every model-based path and
// the full case counts of the property, fuzz and crash tests; see test/support/runs.ts), then the
// storage crash trials (`test/storage/stress.ts [trials] [seed]`), the stale-lock race between two
// processes (`test/storage/lockRaceStress.ts [rounds] [seed]`, 500 rounds), the Host's peak
// resident set with 20 stalled event-stream readers and 800 deliveries
// (`test/reliability/hostStreams.ts [deliveries] [clients]`), then the reliability checks at
// length (`test/reliability/stress.ts [seed]`), then 100 multi-process fault trials of the
// PostgreSQL cluster (`test/cluster/trial/run.ts [trials] [seed]`, PG_TEST_URL), then three 30-s
// rounds of database blips under a plain PostgreSQL storage (`test/storage/postgresBlipStress.ts
// [rounds] [seconds] [seed]`, PG_TEST_URL), then 1 000 creates by a client that abandons calls and
// retries them with their Idempotency-Key, on files and on PostgreSQL with blips of killed
// connections (`test/reliability/idempotentRetry.ts [creates] [database url] [kill]`). Each part
// runs in its own process; the first failing part stops the run with its exit code.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const [trials, seed] = process.argv.slice(2);
const parts: Array<[string, string[]]> = [
  ['storage/stress.ts', [trials ?? '300', ...(seed === undefined ? [] : [seed])]],
  ['storage/lockRaceStress.ts', ['500', ...(seed === undefined ? [] : [seed])]],
  ['reliability/hostStreams.ts', ['800', '20']],
  ['reliability/stress.ts', seed === undefined ? [] : [seed]],
  ['cluster/trial/run.ts', ['100', ...(seed === undefined ? [] : [seed])]],
  ['storage/postgresBlipStress.ts', ['3', '30', ...(seed === undefined ? [] : [seed])]],
  ['reliability/idempotentRetry.ts', ['1000']],
  ['reliability/idempotentRetry.ts', ['1000', process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test', 'kill']],
];

const vitest = join(import.meta.dirname, '..', 'node_modules', 'vitest', 'vitest.mjs');
const long = spawnSync(process.execPath, [vitest, 'run'], { stdio: 'inherit', env: { ...process.env, AGENT_SCHEDULE_LONG: '1' } });
if (long.status !== 0) process.exit(long.status ?? 1);

for (const [file, args] of parts) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file), ...args], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
