// The reliability checks at length (`npm run stress`, after the storage crash trials):
// 1 000 000 tool-argument cases through the tool handlers and 200 000 through the whole service,
// 20 000 mutated stored domains, 1 000 clock-jump sequences on each clock (and as many again with
// Sessions failing now and then), 5 000 isolation sequences, 2 000 HTTP isolation sequences,
// power-loss trials of the storage over 40 seeds (a crash image before every file operation) and
// 200 whole-Host crash trials. Usage: `tsx test/reliability/stress.ts [seed] [scale]` (scale
// multiplies every count; 0.01 for a quick look). Prints one JSON line per check and exits
// non-zero on the first violated property, printing fast-check's counterexample and the seed to
// replay it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const seed = Number(process.argv[2] ?? Date.now() % 1_000_000);
const scale = Number(process.argv[3] ?? 1);
const count = (n: number): number => Math.max(1, Math.round(n * scale));

const { fuzzToolHandlers, fuzzToolService } = await import('./toolFuzz.ts');
const { fuzzDocuments } = await import('./documentFuzz.ts');
const { runClockJumps } = await import('./clockJumps.ts');
const { runIsolation } = await import('./isolation.ts');
const { runHttpIsolation } = await import('./httpIsolation.ts');
const { runHostCrashTrials } = await import('./hostCrash.ts');
const { runPowerLoss } = await import('./powerLoss.ts');

const checks: Array<[string, () => Promise<unknown>]> = [
  ['tool arguments, tool handlers', async () => fuzzToolHandlers({ runs: count(1_000_000), seed })],
  ['tool arguments, whole service', () => fuzzToolService({ runs: count(200_000), seed: seed + 1 })],
  [
    'mutated stored domains',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-mutated-'));
      try {
        return await fuzzDocuments(dir, { runs: count(20_000), seed: seed + 2 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  ],
  ['clock jumps, manual clock', () => runClockJumps({ runs: count(1_000), seed: seed + 3, clock: 'manual', maxSteps: 16 })],
  ['clock jumps, platform-like clock', () => runClockJumps({ runs: count(1_000), seed: seed + 4, clock: 'platform', maxSteps: 16 })],
  [
    'clock jumps with failing Sessions, manual clock',
    () => runClockJumps({ runs: count(1_000), seed: seed + 6, clock: 'manual', maxSteps: 16, faults: true }),
  ],
  [
    'clock jumps with failing Sessions, platform-like clock',
    () => runClockJumps({ runs: count(1_000), seed: seed + 7, clock: 'platform', maxSteps: 16, faults: true }),
  ],
  ['Session isolation', () => runIsolation({ runs: count(5_000), seed: seed + 5, maxCalls: 40 })],
  ['Session isolation over HTTP', () => runHttpIsolation({ runs: count(2_000), seed: seed + 9, maxRequests: 20 })],
  [
    'power loss',
    async () => {
      const total = { seeds: 0, crashPoints: 0, images: 0, opened: 0, acknowledgedChecked: 0, unacknowledgedKept: 0, failures: 0 };
      for (let i = 0; i < count(40); i++) {
        const f = await runPowerLoss({
          seed: seed + 100 + i,
          batches: 40,
          window: 8,
          compactionMinBytes: 4096 + (i % 4) * 4096,
          mixedImages: 4,
        });
        if (f.failures > 0) throw new Error(`power loss, seed ${seed + 100 + i}: ${f.problems.join('\n')}`);
        total.seeds++;
        total.crashPoints += f.crashPoints;
        total.images += f.images;
        total.opened += f.opened;
        total.acknowledgedChecked += f.acknowledgedChecked;
        total.unacknowledgedKept += f.unacknowledgedKept;
      }
      return total;
    },
  ],
  [
    'whole-Host crash trials',
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'agent-schedule-host-crash-'));
      try {
        const figures = await runHostCrashTrials({ dataDir, trials: count(200), seed: seed + 8 });
        if (figures.transcriptDuplicates > 0) throw new Error(`${figures.transcriptDuplicates} reminders appear twice in a transcript`);
        return figures;
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  ],
];

console.log(`reliability stress: seed ${seed}, scale ${scale}`);
const started = Date.now();
for (const [name, run] of checks) {
  const t = Date.now();
  try {
    const figures = await run();
    console.log(JSON.stringify({ check: name, seconds: Math.round((Date.now() - t) / 100) / 10, ...(figures as object) }));
  } catch (error) {
    console.error(`${name}: FAILED (seed ${seed}, scale ${scale})`);
    console.error(error instanceof Error ? error.message : error);
    if (error instanceof Error && error.cause !== undefined) console.error('caused by:', error.cause);
    process.exit(1);
  }
}
console.log(JSON.stringify({ check: 'all', seconds: Math.round((Date.now() - started) / 1000) }));
