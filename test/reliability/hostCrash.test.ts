// Whole-Host crash trials at test scale (6 trials, fixed seed; the long form runs 12 and
// `npm run stress` 200 more): a child runs the Host's stack under a generated workload — several
// calls in flight — on an accelerated clock and is killed while starting, at random moments,
// inside a Session flush, between a flush and the row write, inside a write and after one; the
// next child often starts right on the dead child's lock and journal, sometimes two children
// racing for that stale lock (exactly one opens). Each kill and each restart must hold every
// acknowledged mutation, deliver every reminder due before the kill, and leave no reminder twice in
// a transcript. See hostCrash.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runs } from '../support/runs.ts';
import { runHostCrashTrials } from './hostCrash.ts';

const TRIALS = runs({ short: 3, long: 12 });

describe('whole-Host crash trials', () => {
  it(`${TRIALS} trials of SIGKILLed Hosts under load: acknowledged changes kept, due reminders delivered, no duplicate in a transcript`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-schedule-host-crash-'));
    try {
      // The seed's first six trials kill in every place a trial can, and some compact the journal.
      const figures = await runHostCrashTrials({ dataDir, trials: TRIALS, seed: 7_305 });
      expect(figures.trials).toBe(TRIALS);
      expect(figures.transcriptDuplicates).toBe(0);
      expect(figures.mutationsAcknowledged).toBeGreaterThan(50);
      expect(figures.deliveredByChildren).toBeGreaterThan(20);
      expect(figures.dueBeforeKill).toBeGreaterThan(0);
      expect(figures.kills['between a flush and the row write']).toBeGreaterThan(0);
      expect(Object.keys(figures.kills).length).toBeGreaterThanOrEqual(3);
      expect(figures.compactingTrials).toBeGreaterThan(0);
      expect(figures.startsOnDeadChild).toBeGreaterThan(0);
      expect(figures.staleLockRaces).toBeGreaterThan(0);
      expect(figures.maxCallers).toBeGreaterThan(1);
      expect(figures.callsInFlightAtKills).toBeGreaterThan(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 300_000);
});
