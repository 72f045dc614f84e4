// `npm run bench:compare -- <before-commit> [--runs N] [--bench delivery,restore] [--keep]`: the same
// benchmarks on an earlier commit and on this work tree, on the same machine in the same session.
// The earlier commit is checked out as a detached git worktree under the temp folder (its
// dependencies installed once with `npm ci`), and the runs alternate — before delivery, after
// delivery, before restore, after restore, and again N times — each in a child process of its own,
// so that a drift of the machine's speed falls on both sides alike. The figures are read from each
// benchmark's printed tables and shown side by side with their medians and the after/before ratio.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Figure, readerFor } from './support/benchTables.ts';
import { compileBenchmarks } from './support/compiled.ts';
import { median } from './support/stats.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const usage = 'usage: npm run bench:compare -- <before-commit> [--runs N] [--bench delivery,restore] [--keep]';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '3' },
    bench: { type: 'string', default: 'delivery,restore' },
    keep: { type: 'boolean', default: false },
  },
});
const commit = positionals[0];
const runs = Number(values.runs);
const benches = values.bench
  .split(',')
  .map((b) => b.trim())
  .filter((b) => b !== '');
if (commit === undefined || positionals.length > 1 || !Number.isInteger(runs) || runs < 1 || benches.length === 0) {
  console.error(usage);
  process.exit(2);
}

const log = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

function git(args: readonly string[], cwd = root): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

// A Ctrl-C reaches the running benchmark too; the run stops after it and the worktree is removed.
let interrupted = false;
process.on('SIGINT', () => {
  interrupted = true;
});

const resolved = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${commit}^{commit}`], { cwd: root, encoding: 'utf8' });
if (resolved.status !== 0) {
  console.error(`not a commit: ${commit}`);
  process.exit(2);
}
const sha = resolved.stdout.trim();
const short = sha.slice(0, 9);
const before = join(tmpdir(), `agent-schedule-before-${short}`);
const afterHead = git(['rev-parse', '--short=9', 'HEAD']);
const afterDirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';

/** Each benchmark's figures per side, one list per run. */
const results = new Map<string, { before: Figure[][]; after: Figure[][] }>();
const notes = new Set<string>();
const failures: string[] = [];
/** The one-minute load average as each run starts: other work on the machine shows here. */
const loads: number[] = [];
/** Runs one benchmark of one side: `file` is its compiled JavaScript (support/compiled.ts). */
function runBench(side: 'before' | 'after', bench: string, file: string): void {
  const cwd = side === 'before' ? before : root;
  loads.push(loadavg()[0] ?? Number.NaN);
  const t0 = performance.now();
  const child = spawnSync(process.execPath, ['--expose-gc', file], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 << 20,
  });
  if (child.signal === 'SIGINT' || interrupted) throw new Error('interrupted');
  const seconds = ((performance.now() - t0) / 1000).toFixed(0);
  if (child.status !== 0) {
    failures.push(`${side} ${bench}: exit code ${child.status ?? child.signal}`);
    log(`  ${side} ${bench}: failed (${child.status ?? child.signal}) after ${seconds} s`);
    return;
  }
  const reading = readerFor(bench)(child.stdout);
  for (const note of reading.notes) notes.add(`${side}: ${note}`);
  const entry = results.get(bench) ?? { before: [], after: [] };
  entry[side].push([...reading.figures]);
  results.set(bench, entry);
  log(`  ${side} ${bench}: ${seconds} s, ${reading.figures.length} figures`);
}

function table(): string {
  const lines = ['| measure | before runs | after runs | before median | after median | ratio |', '|---|---|---|---:|---:|---:|'];
  for (const bench of benches) {
    const entry = results.get(bench);
    if (entry === undefined) continue;
    const measures = [...new Set([...entry.after, ...entry.before].flat().map((f) => f.measure))];
    for (const measure of measures) {
      const of = (side: Figure[][]): Figure[] => side.flatMap((run) => run.filter((f) => f.measure === measure));
      const b = of(entry.before);
      const a = of(entry.after);
      const sample = a[0] ?? b[0]!;
      const digits = Math.max(0, ...[...a, ...b].map((f) => f.digits));
      const unit = sample.unit === '' ? '' : ` ${sample.unit}`;
      const show = (x: number): string => (Number.isNaN(x) ? '—' : `${x.toFixed(digits)}${unit}`);
      const list = (fs: Figure[]): string => (fs.length === 0 ? '—' : fs.map((f) => f.value.toFixed(digits)).join(', ') + unit);
      const bm = median(b.map((f) => f.value));
      const am = median(a.map((f) => f.value));
      const ratio = Number.isNaN(bm) || Number.isNaN(am) || bm === 0 ? '—' : `${(am / bm).toFixed(2)}×`;
      lines.push(`| ${bench}: ${measure} | ${list(b)} | ${list(a)} | ${show(bm)} | ${show(am)} | ${ratio} |`);
    }
  }
  return lines.join('\n');
}

let exitCode = 0;
let created = false;
try {
  for (const bench of benches) {
    if (!existsSync(join(root, 'bench', `${bench}.bench.ts`))) throw new Error(`no benchmark bench/${bench}.bench.ts in this tree`);
  }
  if (existsSync(before)) {
    const head = git(['rev-parse', 'HEAD'], before);
    if (head !== sha) throw new Error(`${before} exists at ${head}, not ${sha}; remove it first`);
    log(`reusing the worktree ${before}`);
  } else {
    log(`git worktree add --detach ${before} ${short}`);
    git(['worktree', 'add', '--detach', before, sha]);
  }
  created = true;
  for (const bench of benches) {
    if (!existsSync(join(before, 'bench', `${bench}.bench.ts`))) throw new Error(`no benchmark bench/${bench}.bench.ts at ${short}`);
  }
  if (!existsSync(join(before, 'node_modules'))) {
    log(`npm ci in ${before}`);
    const ci = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: before, stdio: ['ignore', 2, 2] });
    if (ci.status !== 0) throw new Error(`npm ci in ${before} failed with exit code ${ci.status}`);
  }
  log("compiling both trees with this tree's TypeScript");
  const compiledBefore = compileBenchmarks(before, root);
  const compiledAfter = compileBenchmarks(root);
  for (let i = 1; i <= runs; i++) {
    log(`run ${i} of ${runs}`);
    for (const bench of benches) {
      runBench('before', bench, compiledBefore(bench));
      runBench('after', bench, compiledAfter(bench));
    }
  }
  console.log(
    `before: ${short}; after: this work tree at ${afterHead}${afterDirty ? ' with uncommitted changes' : ''}; ` +
      `${runs} alternating run${runs === 1 ? '' : 's'} of ${benches.join(', ')}, each in a child process; node ${process.version}`,
  );
  console.log('');
  console.log(table());
  console.log('');
  console.log('ratio: after median ÷ before median (below 1 is faster or smaller); — where a side has no such row');
  console.log(`load average (1 min) as each run started: ${loads.map((l) => l.toFixed(1)).join(', ')}`);
  for (const note of notes) console.log(`read ${note}`);
  for (const failure of failures) console.log(`failed: ${failure}`);
  if (failures.length > 0) exitCode = 1;
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  exitCode = 1;
} finally {
  if (created && !values.keep) {
    log(`git worktree remove --force ${before}`);
    git(['worktree', 'remove', '--force', before]);
  } else if (created) {
    log(`kept the worktree ${before}`);
  }
}
process.exit(exitCode);
