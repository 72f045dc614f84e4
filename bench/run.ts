// `npm run bench [name …]`: runs every bench/<name>.bench.ts (or only the named ones), each in a
// child process of its own so that heap and timing figures do not leak between benchmarks. They
// run compiled, as the shipped build is (support/compiled.ts). Each benchmark prints its own
// table; nothing here asserts a speed.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileBenchmarks } from './support/compiled.ts';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const all = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const names = wanted.length > 0 ? wanted : all;
const unknown = names.filter((n) => !all.includes(n));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${all.join(', ')}`);
  process.exit(2);
}

const compiled = compileBenchmarks(join(here, '..'));
let failed = false;
for (const name of names) {
  console.log(`\n## ${name}\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', compiled(name)], {
    stdio: 'inherit',
    cwd: join(here, '..'),
  });
  if (result.status !== 0) {
    console.error(`benchmark ${name} failed with exit code ${result.status}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
