// The inspector's bounds: the ring keeps only the newest entries, and a large restored domain
// gives one compact record per task actor.
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { EventRing } from '../../src/inspector/eventRing.ts';
import { createScheduleInspector } from '../../src/inspector/index.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';

describe('EventRing', () => {
  it('keeps the newest items in order and counts what it dropped', () => {
    const ring = new EventRing<number>(3);
    for (let i = 1; i <= 7; i++) ring.push(i);
    expect(ring.toArray()).toEqual([5, 6, 7]);
    expect(ring.size).toBe(3);
    expect(ring.dropped).toBe(4);
    expect(ring.toArray((n) => n % 2 === 1)).toEqual([5, 7]);
    expect(ring.toArray(undefined, 2)).toEqual([6, 7]);
    ring.clear();
    expect(ring.toArray()).toEqual([]);
    expect(ring.dropped).toBe(0);
  });

  it('rejects a capacity that is not a positive integer', () => {
    expect(() => new EventRing(0)).toThrow(RangeError);
    expect(() => new EventRing(1.5)).toThrow(RangeError);
  });
});

const T0 = '2030-01-01T08:00:00.000Z';

/** A stored domain of `n` active every-hour tasks spread over 100 Sessions. */
function domainOf(n: number): unknown {
  const tasks = [];
  for (let i = 1; i <= n; i++) {
    tasks.push({
      sessionId: `s${i % 100}`,
      status: 'active',
      record: {
        id: `sch_${i}`,
        kind: 'every',
        title: `Task ${i}`,
        prompt: 'p',
        scheduledAt: '2030-01-01T09:00:00.000Z',
        everySeconds: 3600,
      },
    });
  }
  return { version: 1, nextTaskNumber: n + 1, tasks };
}

describe('inspector bounds', () => {
  it('the ring never holds more than its capacity, however many actors act', async () => {
    const clock = createManualClock(T0);
    const inspector = createScheduleInspector({ capacity: 50, now: clock.now });
    const svc = await createScheduleService({
      sessions: createFakeSessions(),
      storage: memoryStorage(),
      clock,
      inspect: inspector.inspect,
    });
    clock.attach(svc);
    for (let i = 0; i < 20; i++) await svc.callTool(`s${i}`, 'schedule_create', { prompt: 'p', title: 't', after_seconds: 60 });
    await clock.advance(60_000);
    await svc.whenIdle();
    const view = inspector.view();
    expect(view.events).toHaveLength(50);
    expect(view.ring.capacity).toBe(50);
    expect(view.ring.dropped).toBeGreaterThan(0);
    const seqs = view.events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => (seqs[0] ?? 0) + i));
    await svc.close();
  });

  it('a restored domain of 20k tasks gives 20k compact task records', async () => {
    const clock = createManualClock(T0);
    const inspector = createScheduleInspector({ capacity: 100, now: clock.now });
    const svc = await createScheduleService({
      sessions: createFakeSessions(),
      storage: memoryStorage(domainOf(20_000)),
      clock,
      inspect: inspector.inspect,
      config: { passivationHorizonMs: null }, // every task live: 20k actors to record
    });
    const { counts, events } = inspector.view({ limit: 10 });
    expect(counts).toMatchObject({ supervisor: 1, session: 100, task: 20_000 });
    expect(events).toHaveLength(10);
    const allowed = ['key', 'id', 'kind', 'parent', 'session', 'state', 'status', 'lastEvent', 'target', 'title', 'src'];
    const tasks = inspector.actors({ sessionId: 's7' }).filter((a) => a.kind === 'task');
    expect(tasks).toHaveLength(200);
    for (const task of tasks) expect(Object.keys(task).every((k) => allowed.includes(k))).toBe(true);
    expect(tasks[0]).toMatchObject({ session: 's7', state: 'scheduled', target: '2030-01-01T09:00:00.000Z' });
    await svc.close();
    expect(inspector.view().counts).toMatchObject({ session: 0, task: 0 });
  });
});
