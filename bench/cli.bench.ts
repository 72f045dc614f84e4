// Benchmark: the `agent-schedule` command as the installed package runs it — `node
// dist/src/cli/bin.js`, built first with `npm run build` — against the reference Host (`npm
// start`'s program, support/cliHost.ts) holding 10,000 and then 100,000 tasks. Each figure is the
// wall-clock time of one whole process, start-up included, from spawn to exit, for `explain`
// (one task by id, no --session), `catalog --state failing --json`, `catalog` (the first page
// under the counts per state) and `drift` (the first 50 drifted targets and their number);
// `--version` (no Host call) is the floor of start-up alone. Goal: each under a second at 100,000.
import { spawnSync } from 'node:child_process';
import { cliBenchRows, startBenchHost } from './support/cliHost.ts';
import { fmt } from './support/domains.ts';
import { quantile } from './support/stats.ts';

const SIZES = (process.env.CLI_TASKS ?? '10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.CLI_ROUNDS ?? 7);
const BIN = 'dist/src/cli/bin.js';

const build = spawnSync('npm', ['run', 'build'], { stdio: ['ignore', 'ignore', 'inherit'] });
if (build.status !== 0) throw new Error(`npm run build failed with exit code ${build.status ?? build.signal}`);

/** The commands timed, by label; `id` is a task of the schedule (the explain target). */
const commands = (id: string): Array<[string, string[]]> => [
  ['`--version` (start-up only, no Host call)', ['--version']],
  [`\`explain --id ${id}\``, ['explain', '--id', id]],
  ['`catalog --state failing --json`', ['catalog', '--state', 'failing', '--json']],
  ['`catalog`', ['catalog']],
  ['`drift`', ['drift']],
];

interface Timing {
  readonly p50: number;
  readonly max: number;
  readonly bytes: number;
}

/** Runs `node <args>` once to warm the Host, then `ROUNDS` times; p50 and max of the process's wall-clock time. */
function time(args: string[]): Timing {
  const samples: number[] = [];
  let bytes = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const t0 = performance.now();
    const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
    const ms = performance.now() - t0;
    if (run.status !== 0) throw new Error(`${args.join(' ')} exited with ${run.status}: ${run.stderr || run.stdout}`);
    bytes = Buffer.byteLength(run.stdout);
    if (round > 0) samples.push(ms);
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), max: samples.at(-1) ?? Number.NaN, bytes };
}

const results = new Map<number, Timing[]>();
let labels: string[] = [];
for (const size of SIZES) {
  const host = await startBenchHost(cliBenchRows(size));
  try {
    // An active daily task three quarters of the way through the ids.
    const id = `sch_${Math.floor((size * 3) / 4 / 5) * 5 + 1}`;
    const timed = commands(id);
    labels = timed.map(([label]) => label.replace(id, 'sch_…'));
    results.set(
      size,
      timed.map(([, argv]) => time([BIN, ...argv, '--url', host.url])),
    );
  } finally {
    await host.stop();
  }
}

console.log(
  `\`node ${BIN} … --url <Host>\`, one process per run, against the reference Host (\`npm start\` on a test clock) holding ${SIZES.map((s) => s.toLocaleString('en-US')).join(' and ')} tasks over 1,000 Sessions (five kinds; one in 100 paused, one in 250 failing, one in 200 wall-clock targets drifted, one in 50 ended). ${ROUNDS} timed runs after one warm-up, Node ${process.version}.`,
);
console.log('');
console.log(`| command | ${SIZES.map((s) => `${s.toLocaleString('en-US')}: p50 ms | max ms | output bytes`).join(' | ')} |`);
console.log(`|---|${SIZES.map(() => '---:|---:|---:').join('|')}|`);
labels.forEach((label, i) => {
  const cells = SIZES.map((size) => {
    const t = results.get(size)?.[i];
    return t === undefined ? '- | - | -' : `${fmt(t.p50, 0)} | ${fmt(t.max, 0)} | ${t.bytes.toLocaleString('en-US')}`;
  });
  console.log(`| ${label} | ${cells.join(' | ')} |`);
});
// Node's own start-up on this machine at this moment: what no command can go below.
const floor = time(['-e', '0']);
console.log(
  `| \`node -e 0\` (Node alone, for scale) | ${SIZES.map(() => `${fmt(floor.p50, 0)} | ${fmt(floor.max, 0)} | 0`).join(' | ')} |`,
);
console.log('');
console.log('goal: each command under 1,000 ms at 100,000 tasks');
