// The restore limiter: at most `limit` tasks at once, the rest in arrival order, places released on failure too.
import { Limiter } from '../../src/runtime/limiter.ts';
import { waitUntil } from '../support/waitUntil.ts';

describe('Limiter', () => {
  it('runs at most `limit` at once, in arrival order, and frees a place when a task fails', async () => {
    const limiter = new Limiter(2);
    const started: number[] = [];
    const gates: Array<() => void> = [];
    const runs = Array.from({ length: 5 }, (_, i) =>
      limiter
        .run(async () => {
          started.push(i);
          await new Promise<void>((r) => gates.push(r));
          if (i === 0) throw new Error('boom');
          return i;
        })
        .catch((e: Error) => e.message),
    );
    await waitUntil(() => started.length === 2, 'two tasks to start');
    expect(started).toEqual([0, 1]);
    expect(limiter.active).toBe(2);
    // Each task let go frees a place for the next waiting one, until all five have started.
    for (let done = 1; gates.length > 0; done++) {
      gates.shift()?.();
      await waitUntil(() => started.length === Math.min(5, done + 2), `${Math.min(5, done + 2)} tasks to start`);
    }
    expect(await Promise.all(runs)).toEqual(['boom', 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.active).toBe(0);
  });
});
