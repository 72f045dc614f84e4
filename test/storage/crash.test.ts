// The crash test: a child process commits batches in a loop and prints each acknowledgement; it
// is killed with SIGKILL at random moments (12 trials here; the long form runs 30 and
// `npm run stress` 300 more). After each kill the domain must open, hold every acknowledged batch
// and nothing never attempted, equal the workload's state after some prefix of batches, and cope
// with a torn journal tail.
import { runs } from '../support/runs.ts';
import { runCrashTrials } from './crashTrial.ts';
import { removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

// A multiple of three, so a third of the trials get an injected torn tail; seed 42's first twelve
// also kill four children before they open the domain.
const TRIALS = runs({ short: 12, long: 30 });

describe('crash safety', () => {
  it(`${TRIALS} SIGKILLs at random moments: acknowledged batches survive, nothing unattempted appears`, async () => {
    const summary = await runCrashTrials(tempDir(), TRIALS, 42);
    expect(summary.trials).toBe(TRIALS);
    expect(summary.acknowledged).toBeGreaterThan(0);
    expect(summary.killedBeforeOpen).toBeGreaterThan(0);
    expect(summary.tornTails).toBeGreaterThanOrEqual(TRIALS / 3);
    expect(summary.lastBatch).toBeGreaterThan(0);
  }, 240_000);
});
