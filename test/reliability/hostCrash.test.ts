// Whole-Host crash trials at CI scale (20 SIGKILLs, fixed seed; `npm run stress` runs 200): a
// child runs the Host's stack under a generated workload on an accelerated clock and is killed
// while starting, at random moments, inside a Session flush, between a flush and the row write,
// inside a write and after one; each restart must hold every acknowledged mutation, deliver every
// reminder due before the kill, and leave no reminder twice in a transcript. See hostCrash.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runHostCrashTrials } from './hostCrash.ts';

describe('whole-Host crash trials', () => {
  it('20 SIGKILLs of a Host under load: acknowledged changes kept, due reminders delivered, no duplicate in a transcript', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-schedule-host-crash-'));
    try {
      const figures = await runHostCrashTrials({ dataDir, trials: 20, seed: 7_301 });
      expect(figures.trials).toBe(20);
      expect(figures.transcriptDuplicates).toBe(0);
      expect(figures.mutationsAcknowledged).toBeGreaterThan(50);
      expect(figures.deliveredByChildren).toBeGreaterThan(20);
      expect(figures.dueBeforeKill).toBeGreaterThan(0);
      expect(figures.kills['between a flush and the row write']).toBeGreaterThan(0);
      expect(Object.keys(figures.kills).length).toBeGreaterThanOrEqual(3);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
