// `npm run stress [trials] [seed]`: every long-running check, one after another — the storage
// crash trials (`test/storage/stress.ts [trials] [seed]`), then the reliability checks at length
// (`test/reliability/stress.ts [seed]`). Each part runs in its own process; the first failing
// part stops the run with its exit code.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const [trials, seed] = process.argv.slice(2);
const parts: Array<[string, string[]]> = [
  ['storage/stress.ts', [trials ?? '300', ...(seed === undefined ? [] : [seed])]],
  ['reliability/stress.ts', seed === undefined ? [] : [seed]],
];

for (const [file, args] of parts) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, file), ...args], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
