// Clock jumps at CI scale (fixed seeds; `npm run stress` runs many more sequences): forward by
// minutes, days and years, backward by hours, across DST transitions in both directions, on the
// manual clock and on a platform-like clock whose timers are monotonic — and once more with
// Sessions failing to resolve now and then. See clockJumps.ts for what each step checks against
// the project's brute-force oracle (test/support/oracle).
import { runClockJumps } from './clockJumps.ts';

const STEP_KINDS = ['advance', 'forward minutes', 'forward days', 'forward years', 'backward', 'dstEdge'];

describe('clock jumps with recurring tasks of every kind active', () => {
  it('manual clock (wall-keyed timers, set() jumps): nothing early, nothing lost, only the latest missed occurrence', async () => {
    const figures = await runClockJumps({ runs: 100, seed: 7_101, clock: 'manual' });
    expect(figures.runs).toBe(100);
    expect(figures.reminders).toBeGreaterThan(2_000);
    for (const kind of STEP_KINDS) expect(figures.stepsByKind[kind]).toBeGreaterThan(0);
  });

  it('platform-like clock (monotonic timers, wall steps under them): the same, noticed within maxWaitMs', async () => {
    const figures = await runClockJumps({ runs: 100, seed: 7_102, clock: 'platform' });
    expect(figures.runs).toBe(100);
    expect(figures.reminders).toBeGreaterThan(2_000);
    for (const kind of STEP_KINDS) expect(figures.stepsByKind[kind]).toBeGreaterThan(0);
  });

  it.each(['manual', 'platform'] as const)(
    '%s clock with Sessions failing to resolve: retried, and all caught up once they recover',
    async (clock) => {
      const figures = await runClockJumps({ runs: 60, seed: clock === 'manual' ? 7_103 : 7_104, clock, faults: true });
      expect(figures.runs).toBe(60);
      expect(figures.stepsByKind.fail).toBeGreaterThan(20);
    },
  );
});
