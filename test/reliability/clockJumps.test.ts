// Clock jumps at test scale (fixed seeds; `npm run stress` runs many more sequences): forward by
// minutes, days and years, backward by hours, across DST transitions in both directions, on the
// manual clock and on a platform-like clock whose timers are monotonic — and once more with
// Sessions failing to resolve now and then. See clockJumps.ts for what each step checks against
// the project's brute-force oracle (test/support/oracle).
import { runs } from '../support/runs.ts';
import { runClockJumps } from './clockJumps.ts';

const STEP_KINDS = ['advance', 'forward minutes', 'forward days', 'forward years', 'backward', 'dstEdge'];
const SEQUENCES = runs({ short: 20, long: 100 });
const FAULT_SEQUENCES = runs({ short: 12, long: 60 });

describe('clock jumps with recurring tasks of every kind active', () => {
  it('manual clock (wall-keyed timers, set() jumps): nothing early, nothing lost, only the latest missed occurrence', async () => {
    const figures = await runClockJumps({ runs: SEQUENCES, seed: 7_101, clock: 'manual' });
    expect(figures.runs).toBe(SEQUENCES);
    expect(figures.reminders).toBeGreaterThan(20 * SEQUENCES);
    for (const kind of STEP_KINDS) expect(figures.stepsByKind[kind]).toBeGreaterThan(0);
  });

  it('platform-like clock (monotonic timers, wall steps under them): the same, noticed within maxWaitMs', async () => {
    const figures = await runClockJumps({ runs: SEQUENCES, seed: 7_102, clock: 'platform' });
    expect(figures.runs).toBe(SEQUENCES);
    expect(figures.reminders).toBeGreaterThan(20 * SEQUENCES);
    for (const kind of STEP_KINDS) expect(figures.stepsByKind[kind]).toBeGreaterThan(0);
  });

  it.each(['manual', 'platform'] as const)(
    '%s clock with Sessions failing to resolve: retried, and all caught up once they recover',
    async (clock) => {
      const figures = await runClockJumps({ runs: FAULT_SEQUENCES, seed: clock === 'manual' ? 7_103 : 7_104, clock, faults: true });
      expect(figures.runs).toBe(FAULT_SEQUENCES);
      expect(figures.stepsByKind.fail).toBeGreaterThan(FAULT_SEQUENCES / 3);
    },
  );
});
