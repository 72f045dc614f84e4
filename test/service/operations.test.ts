// Pause, run now and the failure status through the service: what the views, the catalog and the
// log say while attempts fail in each stage, with retry on and off, and how pause and run now
// meet a delivery in flight and a restart.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { CatalogEntry, ScheduleView } from '../../src/domain/tasks/types.ts';
import type { FailurePoint } from '../../src/testing.ts';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
const SECOND = 1000;
const plus = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

async function entryOf(h: Awaited<ReturnType<typeof harness>>, id: string): Promise<CatalogEntry> {
  const entry = (await h.svc.remote.catalog()).find((e) => e.record.id === id);
  if (entry === undefined) throw new Error(`no catalog entry ${id}`);
  return entry;
}

describe('the failure status', () => {
  const stages: FailurePoint[] = ['resolve', 'followup', 'flush'];
  for (const stage of stages) {
    it(`names a failed ${stage}, counts consecutive attempts and the next retry, and clears once a delivery commits`, async () => {
      const h = await harness({ start: T0, config: { retry: { initialMs: 1000, maxMs: 8000 } } });
      const task = await create(h, 's1', { every_seconds: 600 });
      h.sessions.failNext('s1', stage);
      h.sessions.failNext('s1', stage);
      await tick(h, 10 * MINUTE);
      expect((await entryOf(h, task.id)).failure).toEqual({
        attempts: 1,
        lastAt: plus(10 * MINUTE),
        stage,
        message: expect.any(String),
        nextRetryAt: plus(10 * MINUTE + SECOND),
      });
      await tick(h, SECOND);
      const second = (await entryOf(h, task.id)).failure;
      expect(second).toMatchObject({ attempts: 2, lastAt: plus(10 * MINUTE + SECOND), stage, nextRetryAt: plus(10 * MINUTE + 3 * SECOND) });
      const [view] = (await h.svc.callTool('s1', 'schedule_list', {})) as ScheduleView[];
      expect(view?.failure).toEqual(second);
      const warnings = h.logs.filter((l) => l.msg.startsWith('A delivery attempt failed'));
      expect(warnings.map((w) => w.data)).toEqual([
        expect.objectContaining({ sessionId: 's1', taskIds: [task.id], stage, attempt: 1, nextRetryAt: plus(10 * MINUTE + SECOND) }),
        expect.objectContaining({ stage, attempt: 2, nextRetryAt: plus(10 * MINUTE + 3 * SECOND) }),
      ]);
      await tick(h, 2 * SECOND);
      expect(h.sessions.messages('s1')).toHaveLength(1);
      expect((await entryOf(h, task.id)).failure).toBeUndefined();
    });
  }

  it('names a failed commit and the storage error; the write is retried and the status clears', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage, config: { retry: { initialMs: 1000, maxMs: 8000 } } });
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.failNextCommit();
    await tick(h, MINUTE);
    expect((await entryOf(h, task.id)).failure).toMatchObject({ attempts: 1, stage: 'commit', nextRetryAt: plus(MINUTE + SECOND) });
    await tick(h, SECOND);
    const entry = await entryOf(h, task.id);
    expect(entry.status).toBe('inactive');
    expect(entry.failure).toBeUndefined();
  });

  it('with retry off there is no next retry time', async () => {
    const h = await harness({ start: T0, config: { retry: false } });
    const task = await create(h, 's1', { after_seconds: 60 });
    h.sessions.failNext('s1', 'resolve');
    await tick(h, MINUTE);
    const failure = (await entryOf(h, task.id)).failure;
    expect(failure).toMatchObject({ attempts: 1, stage: 'resolve' });
    expect(failure).not.toHaveProperty('nextRetryAt');
  });

  it('run now retries a failing task at once, and that delivery answers the request', async () => {
    const h = await harness({ start: T0, config: { retry: { initialMs: 60_000, maxMs: 60_000 } } });
    const task = await create(h, 's1', { every_seconds: 600 });
    h.sessions.failNext('s1', 'flush');
    await tick(h, 10 * MINUTE);
    expect((await entryOf(h, task.id)).failure?.nextRetryAt).toBe(plus(11 * MINUTE));
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await tick(h, 0);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    const entry = await entryOf(h, task.id);
    expect(entry.failure).toBeUndefined();
    // Delivered as the due occurrence, not as an extra one: nothing more follows.
    expect(entry.lastDelivery).toMatchObject({ scheduledAt: plus(10 * MINUTE) });
    expect(entry.lastDelivery).not.toHaveProperty('trigger');
    await tick(h, MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });
});

describe('run now on a run-now delivery that failed', () => {
  it('writes nothing and tries the waiting delivery again at once, not after its backoff', async () => {
    const h = await harness({ start: T0, config: { retry: { initialMs: 60_000, maxMs: 60_000 } } });
    const task = await create(h, 's1', { every_seconds: 3600 });
    h.sessions.failNext('s1', 'flush');
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await tick(h, 0);
    expect((await entryOf(h, task.id)).failure).toMatchObject({ attempts: 1, stage: 'flush', nextRetryAt: plus(MINUTE) });
    const changes = h.changes.length;
    await tick(h, 5 * SECOND);
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await tick(h, 0);
    expect(h.changes.length).toBe(changes + 1); // the delivery's commit only: the second request wrote nothing
    expect(h.sessions.messages('s1')).toHaveLength(1);
    const entry = await entryOf(h, task.id);
    expect(entry.failure).toBeUndefined();
    // The receipt keeps the instant of the request it answers.
    expect(entry.lastDelivery).toMatchObject({ trigger: 'manual', scheduledAt: T0, deliveredAt: plus(5 * SECOND) });
  });
});

describe('pause and run now meeting other work', () => {
  it('a paused task keeps its failure status until a delivery commits', async () => {
    const h = await harness({ start: T0, config: { retry: { initialMs: 1000, maxMs: 8000 } } });
    const task = await create(h, 's1', { every_seconds: 600 });
    h.sessions.failNext('s1', 'resolve');
    await tick(h, 10 * MINUTE);
    const paused = (await h.svc.remote.pause({ sessionId: 's1', id: task.id })) as ScheduleView;
    expect(paused).toMatchObject({ state: 'paused', failure: { attempts: 1, stage: 'resolve' } });
    await tick(h, 30 * MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(0);
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await tick(h, 0);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    const entry = await entryOf(h, task.id);
    expect(entry).toMatchObject({ pausedAt: plus(10 * MINUTE), lastDelivery: { trigger: 'manual' } });
    expect(entry.failure).toBeUndefined();
  });

  it('a run-now request survives a restart and is delivered after it', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage });
    const task = await create(h, 's1', { every_seconds: 3600 });
    await h.svc.remote.pause({ sessionId: 's1', id: task.id });
    h.sessions.failNext('s1', 'resolve');
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await tick(h, 0);
    expect(h.sessions.messages('s1')).toHaveLength(0);
    await h.svc.close();
    const again = await harness({ start: plus(MINUTE), storage, sessions: h.sessions });
    await again.svc.whenIdle();
    await tick(again, 10 * SECOND);
    expect(again.sessions.messages('s1')).toHaveLength(1);
    expect(await entryOf(again, task.id)).toMatchObject({ pausedAt: T0, lastDelivery: { trigger: 'manual', scheduledAt: T0 } });
  });
});
