// Power-loss trials at CI scale (see powerLoss.ts): the JSON storage crashed before every operation
// that changes a file, on a file system that keeps only what was fsynced (and mixes of durable and
// unsynced state), must reopen with every acknowledged batch; and the check catches a planted
// removal of the journal's fsync, of the directory's fsync and of the new document's fsync.
import { type RemovedFsync, runPowerLoss } from './powerLoss.ts';

const CI = { batches: 24, window: 6, compactionMinBytes: 6144, mixedImages: 2 } as const;

describe('power loss', () => {
  it.each([1, 2, 3])('seed %i: every crash image opens with every acknowledged batch and goes on working', async (seed) => {
    const figures = await runPowerLoss({ ...CI, seed });
    expect(figures.problems).toEqual([]);
    expect(figures.failures).toBe(0);
    expect(figures.crashPoints).toBeGreaterThan(100);
    expect(figures.opened).toBe(figures.images);
    expect(figures.acknowledgedChecked).toBeGreaterThan(1000);
  });

  it.each<[RemovedFsync, RegExp]>([
    ['journal', /acknowledged/],
    ['directory', /acknowledged/],
    ['document', /./],
  ])('a planted removal of the %s fsync is caught', async (removed, problem) => {
    const figures = await runPowerLoss({ ...CI, seed: 1, removedFsync: removed });
    expect(figures.failures).toBeGreaterThan(0);
    expect(figures.problems.join('\n')).toMatch(problem);
  });
});
