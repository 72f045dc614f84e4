// A delivery whose Session flushed but whose row write failed: the write is retried, not the
// delivery. The Session sees each reminder once however many writes fail; the receipt is recorded
// by the first write that succeeds; meanwhile the task is not delivered again while other tasks
// (of other Sessions and of the same Session) keep being delivered. An edit made while the write
// waits is kept and the receipt is recorded on the edited row; a delete drops the receipt; a clean
// close writes it; a restart before it is written redelivers (at-least-once). The receipt lives in
// its task actor's context, and the retried write carries it as the actor reported it.
import type { AnyActorRef, InspectionEvent } from 'xstate';
import type { FlushedAttempt, WaitingReceipt } from '../../machines/events.ts';
import type { TaskContext } from '../../machines/taskMachine.ts';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { CommitBatch, ScheduleStorage, SessionController, StoredDomain } from '../../src/ports.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';
import { closeAll, closeHarness, create, type Harness, harness, MINUTE, tick } from '../support/harness.ts';
import { waitUntil } from '../support/waitUntil.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
const RETRY = { initialMs: 1000, maxMs: 8000 };

/** Memory storage whose commits touching chosen tasks fail a given number of times, recording every attempt. */
class FlakyStorage implements ScheduleStorage {
  readonly inner = new MemoryStorage();
  readonly attempts: Array<{ at: number; ids: string[]; ok: boolean }> = [];
  private readonly failures = new Map<string, number>();
  /** Fail every commit, whatever it holds (an outage), while true. */
  down = false;

  constructor(private readonly clock: ManualClock) {}

  /** The next `times` commits that write task `id` fail without writing anything. */
  failFor(id: string, times: number): void {
    this.failures.set(id, times);
  }

  open(): Promise<StoredDomain> {
    return this.inner.open();
  }

  async commit(batch: CommitBatch): Promise<void> {
    const ids = [...batch.puts.map((row) => row.record.id), ...batch.deletes];
    const hit = ids.find((id) => (this.failures.get(id) ?? 0) > 0);
    const fail = this.down || hit !== undefined;
    this.attempts.push({ at: this.clock.now(), ids, ok: !fail });
    if (hit !== undefined) this.failures.set(hit, (this.failures.get(hit) ?? 0) - 1);
    if (fail) throw new ScheduleError('persistence_uncertain', 'injected storage failure');
    await this.inner.commit(batch);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Attempts to write task `id` from `from` on, as offsets in ms from it. */
  attemptTimes(id: string, from: number): number[] {
    return this.attempts.filter((a) => a.ids.includes(id) && a.at >= from).map((a) => a.at - from);
  }
}

/** Fake Sessions whose next flushes wait, once `hold()` is called, until `release()`. */
function gatedFlush(sessions: FakeSessions) {
  let held = false;
  let waiters: Array<() => void> = [];
  const controller: SessionController = {
    async resolveAgent(sessionId) {
      const agent = await sessions.resolveAgent(sessionId);
      return {
        followup: (message, meta) => agent.followup(message, meta),
        flush: async () => {
          if (held) await new Promise<void>((resolve) => waiters.push(resolve));
          await agent.flush();
        },
      };
    },
  };
  return {
    controller,
    hold: () => {
      held = true;
    },
    /** Flushes waiting for `release()`. */
    get waiting() {
      return waiters.length;
    },
    release: () => {
      held = false;
      const ready = waiters;
      waiters = [];
      for (const go of ready) go();
    },
  };
}

async function setup(options: { retry?: typeof RETRY | false } = {}) {
  const clock = createManualClock(T0);
  const storage = new FlakyStorage(clock);
  const h = await harness({ clock, storage, config: { retry: options.retry ?? RETRY } });
  return { h, storage };
}

const keysOf = (h: Harness, sessionId: string) => h.sessions.messages(sessionId).flatMap((m) => [...m.idempotencyKeys]);
const historyOf = async (h: Harness, sessionId: string, id: string) =>
  ((await h.svc.remote.history({ sessionId, id, limit: 100 })) as { records: ReadonlyArray<{ scheduledAt: string; messageId: string }> })
    .records;
const entryOf = async (h: Harness, id: string) => (await h.svc.remote.catalog()).find((e) => e.record.id === id);

describe('a failed row write after a successful flush', () => {
  it('is retried with backoff until it succeeds, and the Session sees the one-shot exactly once', async () => {
    const { h, storage } = await setup();
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.failFor(task.id, 3);
    await tick(h, MINUTE); // delivered at 08:01:00, the write fails
    for (let i = 0; i < 20; i++) await tick(h, 1000);

    expect(keysOf(h, 's1')).toEqual([`${task.id}@2030-01-01T08:01:00.000Z`]);
    const due = Date.parse('2030-01-01T08:01:00.000Z');
    // the write at the delivery, then retries 1 s, 2 s and 4 s apart; the fourth write succeeds
    expect(storage.attemptTimes(task.id, due)).toEqual([0, 1000, 3000, 7000]);
    const records = await historyOf(h, 's1', task.id);
    expect(records).toHaveLength(1);
    expect(records[0]?.messageId).toBe(h.sessions.messages('s1')[0]?.messageId);
    expect((await entryOf(h, task.id))?.status).toBe('inactive');
  });

  it('a recurring task gets every occurrence at most once, and catches up after the write lands', async () => {
    const { h, storage } = await setup();
    const task = await create(h, 's1', { every_seconds: 60 });
    storage.failFor(task.id, 4);
    await tick(h, MINUTE); // 08:01:00 delivered; writes fail at +0, +1 s, +3 s, +7 s; the one at +15 s lands
    for (let i = 0; i < 30; i++) await tick(h, 1000);

    const keys = keysOf(h, 's1');
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys[0]).toBe(`${task.id}@2030-01-01T08:01:00.000Z`);
    const records = await historyOf(h, 's1', task.id);
    expect(records.map((r) => r.scheduledAt)).toEqual(['2030-01-01T08:01:00.000Z']);
    // recorded as of the attempt: the next target is 08:02:00, still ahead at 08:01:31
    expect((await entryOf(h, task.id))?.record.scheduledAt).toBe('2030-01-01T08:02:00.000Z');
    await tick(h, MINUTE);
    expect(keysOf(h, 's1')).toEqual([`${task.id}@2030-01-01T08:01:00.000Z`, `${task.id}@2030-01-01T08:02:00.000Z`]);
  });

  it('an outage of an hour: one message per one-shot, and the receipt lands once storage is back', async () => {
    const { h, storage } = await setup({ retry: { initialMs: 5000, maxMs: 300_000 } });
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.down = true;
    await tick(h, MINUTE);
    for (let i = 0; i < 60; i++) await tick(h, MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(storage.attempts.filter((a) => !a.ok).length).toBeGreaterThan(5);
    storage.down = false;
    await tick(h, 5 * MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(await historyOf(h, 's1', task.id)).toHaveLength(1);
    expect((await entryOf(h, task.id))?.status).toBe('inactive');
  });

  it('while the write waits, other tasks of other Sessions and of the same Session are delivered and recorded', async () => {
    const { h, storage } = await setup();
    const stuck = await create(h, 's1', { after_seconds: 60 });
    const sibling = await create(h, 's1', { after_seconds: 62 });
    const other = await create(h, 's2', { after_seconds: 61 });
    storage.failFor(stuck.id, 5);
    await tick(h, MINUTE);
    await tick(h, 1000);
    await tick(h, 1000);
    expect(keysOf(h, 's2')).toEqual([`${other.id}@2030-01-01T08:01:01.000Z`]);
    expect(await historyOf(h, 's2', other.id)).toHaveLength(1);
    expect(await historyOf(h, 's1', sibling.id)).toHaveLength(1);
    expect(await historyOf(h, 's1', stuck.id)).toHaveLength(0);
    for (let i = 0; i < 40; i++) await tick(h, 1000);
    expect(keysOf(h, 's1').sort()).toEqual([`${stuck.id}@2030-01-01T08:01:00.000Z`, `${sibling.id}@2030-01-01T08:01:02.000Z`].sort());
    expect(await historyOf(h, 's1', stuck.id)).toHaveLength(1);
  });

  it('a successful write of another change retries the waiting write at once', async () => {
    const { h, storage } = await setup({ retry: { initialMs: 60_000, maxMs: 60_000 } });
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.failFor(task.id, 1);
    await tick(h, MINUTE);
    expect(await historyOf(h, 's1', task.id)).toHaveLength(0);
    await create(h, 's2', { after_seconds: 3600 });
    await h.svc.whenIdle();
    expect(await historyOf(h, 's1', task.id)).toHaveLength(1);
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('with retry disabled the waiting write is parked and written with the next committed change', async () => {
    const { h, storage } = await setup({ retry: false });
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.failFor(task.id, 1);
    await tick(h, MINUTE);
    await tick(h, 10 * MINUTE);
    expect(await historyOf(h, 's1', task.id)).toHaveLength(0);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    await create(h, 's2', { after_seconds: 3600 });
    await h.svc.whenIdle();
    expect(await historyOf(h, 's1', task.id)).toHaveLength(1);
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('a title edit made while the write waits is kept, and the receipt is recorded on the edited row', async () => {
    const { h, storage } = await setup();
    const task = await create(h, 's1', { after_seconds: 60, title: 'Before' });
    storage.failFor(task.id, 1);
    await tick(h, MINUTE);
    const edited = await h.svc.callTool('s1', 'schedule_update', { id: task.id, title: 'After' });
    expect(edited).toMatchObject({ id: task.id, title: 'After' });
    for (let i = 0; i < 5; i++) await tick(h, 1000);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    const entry = await entryOf(h, task.id);
    expect(entry).toMatchObject({ status: 'inactive', record: { title: 'After' } });
    expect(entry?.lastDelivery?.messageId).toBe(h.sessions.messages('s1')[0]?.messageId);
  });

  it('a timing edit made while the write waits keeps its new target; the receipt is still recorded', async () => {
    const { h, storage } = await setup();
    const task = await create(h, 's1', { every_seconds: 60 });
    storage.failFor(task.id, 1);
    await tick(h, MINUTE);
    const edited = await h.svc.callTool('s1', 'schedule_update', { id: task.id, change: { kind: 'every', every_seconds: 3600 } });
    expect(edited).toMatchObject({ everySeconds: 3600, scheduledAt: '2030-01-01T09:01:00.000Z' });
    for (let i = 0; i < 5; i++) await tick(h, 1000);
    const entry = await entryOf(h, task.id);
    expect(entry).toMatchObject({ status: 'active', record: { everySeconds: 3600, scheduledAt: '2030-01-01T09:01:00.000Z' } });
    expect(await historyOf(h, 's1', task.id)).toHaveLength(1);
    await tick(h, 30 * MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('a delete made while the write waits drops the receipt and nothing is delivered again', async () => {
    const { h, storage } = await setup();
    const task = await create(h, 's1', { every_seconds: 60 });
    storage.failFor(task.id, 1);
    await tick(h, MINUTE);
    expect(await h.svc.callTool('s1', 'schedule_delete', { id: task.id })).toEqual({ id: task.id, deleted: true });
    const attempts = storage.attempts.length;
    for (let i = 0; i < 10; i++) await tick(h, MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(await h.svc.remote.catalog()).toEqual([]);
    expect(storage.attempts.length).toBe(attempts);
    expect(h.logs.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual(['A schedule change could not be saved.']);
  });

  it('a task edited during its delivery and due again before that write failed waits for the receipt, then gets its new target', async () => {
    const clock = createManualClock(T0);
    const storage = new FlakyStorage(clock);
    const sessions = createFakeSessions();
    const gate = gatedFlush(sessions);
    const dueAt: number[] = [];
    const h = await harness({
      clock,
      storage,
      sessions,
      controller: gate.controller,
      attachClock: false,
      config: { retry: RETRY },
      inspect: (e) => {
        const event = (e as { event?: { type?: string; now?: number } }).event;
        if (e.type === '@xstate.event' && event?.type === 'tasks.due' && event.now !== undefined) dueAt.push(event.now);
      },
    });
    const task = await create(h, 's1', { after_seconds: 60 });
    gate.hold();
    await clock.advance(MINUTE); // 08:01:00: delivering, the flush is held
    await waitUntil(() => gate.waiting === 1, 'the flush to be held');
    const edited = await h.svc.callTool('s1', 'schedule_update', { id: task.id, change: { kind: 'at', at: '2030-01-01T08:01:30.000Z' } });
    expect(edited).toMatchObject({ kind: 'at', scheduledAt: '2030-01-01T08:01:30.000Z' });
    await clock.advance(30_000); // the new target falls due while the first delivery is still in flight
    await waitUntil(() => dueAt.includes(Date.parse('2030-01-01T08:01:30.000Z')), 'the Session to be told the task is due again');
    storage.failFor(task.id, 1);
    gate.release();
    await h.svc.whenIdle();
    expect(keysOf(h, 's1')).toEqual([`${task.id}@2030-01-01T08:01:00.000Z`]); // not delivered while its receipt waits
    for (let i = 0; i < 5; i++) await tick(h, 1000);
    expect(keysOf(h, 's1')).toEqual([`${task.id}@2030-01-01T08:01:00.000Z`, `${task.id}@2030-01-01T08:01:30.000Z`]);
    expect((await historyOf(h, 's1', task.id)).map((r) => r.scheduledAt)).toEqual(['2030-01-01T08:01:30.000Z', '2030-01-01T08:01:00.000Z']);
    expect((await entryOf(h, task.id))?.status).toBe('inactive');
  });

  it('a clean close writes the waiting receipt; the next start does not deliver it again', async () => {
    const { h, storage } = await setup({ retry: { initialMs: 60_000, maxMs: 60_000 } });
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.failFor(task.id, 1);
    await tick(h, MINUTE);
    await closeHarness(h);
    expect(storage.inner.document()).toMatchObject({
      tasks: [{ status: 'inactive', lastDelivery: { scheduledAt: '2030-01-01T08:01:00.000Z' } }],
    });
    const again = await harness({ clock: h.clock, sessions: h.sessions, storage });
    await tick(again, MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('a restart before the write lands delivers the reminder again (at-least-once), with the same idempotency key', async () => {
    const clock = createManualClock(T0);
    const sessions = createFakeSessions();
    const storage = new FlakyStorage(clock);
    const h = await harness({ clock, sessions, storage, config: { retry: RETRY } });
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.down = true;
    await tick(h, MINUTE);
    await closeHarness(h);
    storage.down = false;
    const again = await harness({ clock, sessions, storage, config: { retry: RETRY } });
    await tick(again, 0);
    expect(keysOf(again, 's1')).toEqual([`${task.id}@2030-01-01T08:01:00.000Z`, `${task.id}@2030-01-01T08:01:00.000Z`]);
    expect(await historyOf(again, 's1', task.id)).toHaveLength(1);
  });
});

describe('the task actor is the one owner of a receipt waiting for its write', () => {
  /** The harness with every retried write's outcome and every task actor's latest context recorded. */
  async function observed() {
    const clock = createManualClock(T0);
    const storage = new FlakyStorage(clock);
    const retried: WaitingReceipt[][] = [];
    const contexts = new Map<string, TaskContext>();
    const h = await harness({
      clock,
      storage,
      config: { retry: { initialMs: 60_000, maxMs: 60_000 } },
      inspect: (inspected) => {
        const e = inspected as InspectionEvent;
        if (e.type === '@xstate.event') {
          const event = e.event as { type: string; flushed?: readonly FlushedAttempt[] };
          if (event.type !== 'delivery.flushed') return;
          for (const f of event.flushed ?? []) if (f.outcome.retried !== undefined) retried.push([...f.outcome.retried]);
        } else if (e.type === '@xstate.snapshot') {
          const { id } = e.actorRef as AnyActorRef;
          if (id.startsWith('sch_')) contexts.set(id, (e.snapshot as unknown as { context: TaskContext }).context);
        }
      },
    });
    return { h, storage, retried, contexts };
  }

  it('the retried write carries the receipt its task actor holds; an edit made meanwhile is recorded with it', async () => {
    const { h, storage, retried, contexts } = await observed();
    const task = await create(h, 's1', { after_seconds: 60, title: 'Before' });
    storage.failFor(task.id, 1);
    await tick(h, MINUTE);
    const held = contexts.get(task.id)?.receipt;
    expect(held).toMatchObject({ sessionId: 's1', reminder: { id: task.id, messageId: h.sessions.messages('s1')[0]?.messageId } });
    expect(retried).toEqual([]);
    // The edit's write succeeds: the waiting receipt is written at once, on the edited row.
    await h.svc.callTool('s1', 'schedule_update', { id: task.id, title: 'After' });
    await h.svc.whenIdle();
    expect(retried).toEqual([[held]]);
    expect(contexts.get(task.id)?.receipt).toBeUndefined();
    expect(await entryOf(h, task.id)).toMatchObject({
      status: 'inactive',
      record: { title: 'After' },
      lastDelivery: { messageId: held?.reminder.messageId },
    });
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('a run now of a task whose run-now receipt waits writes that receipt at once, without delivering it again; the task goes on from the written row', async () => {
    const { h, storage, retried, contexts } = await observed();
    const task = await create(h, 's1', { every_seconds: 3600 });
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    storage.failFor(task.id, 1);
    await tick(h, 0); // the run-now delivery; its write fails
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(contexts.get(task.id)?.receipt).toBeDefined();
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await h.svc.whenIdle();
    expect(retried).toHaveLength(1);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(contexts.get(task.id)?.receipt).toBeUndefined();
    const entry = await entryOf(h, task.id);
    expect(entry).toMatchObject({ status: 'active', lastDelivery: { trigger: 'manual' } });
    expect(entry).not.toHaveProperty('triggeredAt');
    await tick(h, 60 * MINUTE);
    expect(keysOf(h, 's1').at(-1)).toBe(`${task.id}@2030-01-01T09:00:00.000Z`);
    expect(await historyOf(h, 's1', task.id)).toHaveLength(2);
  });
});
