// The crash test: a child process commits batches in a loop and prints each acknowledgement; it
// is killed with SIGKILL at random moments (30 trials here, more with `npm run stress`). After
// each kill the domain must open, hold every acknowledged batch and nothing never attempted,
// equal the workload's state after some prefix of batches, and cope with a torn journal tail.
import { runCrashTrials } from './crashTrial.ts';
import { removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

describe('crash safety', () => {
  it('30 SIGKILLs at random moments: acknowledged batches survive, nothing unattempted appears', async () => {
    const summary = await runCrashTrials(tempDir(), 30, 42);
    expect(summary.trials).toBe(30);
    expect(summary.acknowledged).toBeGreaterThan(0);
    expect(summary.tornTails).toBeGreaterThanOrEqual(10);
    expect(summary.lastBatch).toBeGreaterThan(0);
  }, 240_000);
});
