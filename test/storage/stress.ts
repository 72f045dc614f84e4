// `npm run stress [trials] [seed]`: the crash test at length (default 300 SIGKILL trials), printing
// one line per trial and a summary. Exits non-zero on the first violated guarantee.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCrashTrials } from './crashTrial.ts';

const trials = Number(process.argv[2] ?? 300);
const seed = Number(process.argv[3] ?? Date.now() % 1_000_000);
const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-stress-'));
console.log(`crash stress: ${trials} trials, seed ${seed}, domain in ${dir}`);
const started = Date.now();
try {
  const summary = await runCrashTrials(dir, trials, seed, (line) => console.log(line));
  console.log(JSON.stringify({ ...summary, seconds: Math.round((Date.now() - started) / 1000) }));
  rmSync(dir, { recursive: true, force: true });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  console.error(`domain kept for inspection: ${dir}`);
  process.exit(1);
}
