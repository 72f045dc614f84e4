// Isolation between Sessions at CI scale (fixed seed; `npm run stress` runs many more sequences):
// no sequence of calls made for Session A reads, updates or deletes a task of Session B, and B's
// stored rows stay byte-identical. See isolation.ts.
import { runIsolation } from './isolation.ts';

describe('Session isolation', () => {
  it('no sequence of calls from Session A can list, update or delete a task of Session B', async () => {
    const figures = await runIsolation({ runs: 300, seed: 7_201 });
    expect(figures.sequences).toBe(300);
    expect(figures.aimedAtB).toBeGreaterThan(1_000);
  });
});
