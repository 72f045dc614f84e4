// Bulk actions through the service (`remote.bulk`): a filter across Sessions over more than a
// thousand tasks is applied in batches of 200, one mailbox slot each, and a delivery that flushed
// during one batch is committed before the next (seen in the order of the storage's commits); the
// filter is resolved once, so a task created meanwhile is left alone; skipped tasks are counted by
// reason; run now retries failing tasks; a `callId` answers a retry with the first answer.
import type { AnyEventObject } from 'xstate';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { ScheduleCounts } from '../../src/domain/reads/stateCounts.ts';
import type { ScheduleInspectionEvent } from '../../src/domain/serviceOptions.ts';
import type { BulkResult } from '../../src/domain/tasks/bulk.ts';
import type { CommitBatch, ScheduleAgent, SessionController } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

/** A promise and its resolver. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Memory storage that records what each commit wrote and can hold one commit until released. */
class RecordingStorage extends MemoryStorage {
  readonly written: CommitBatch[] = [];
  hold: { when: (batch: CommitBatch) => boolean; reached: () => void; release: Promise<void> } | undefined;

  override async commit(batch: CommitBatch): Promise<void> {
    const hold = this.hold;
    if (hold?.when(batch) === true) {
      this.hold = undefined;
      hold.reached();
      await hold.release;
    }
    await super.commit(batch);
    this.written.push(batch);
  }
}

const bulkOf = (answer: BulkResult | { code: string }): BulkResult => {
  if ('code' in answer) throw new Error(`refused: ${answer.code}`);
  return answer;
};

describe('remote.bulk', () => {
  it('pauses 1,200 tasks of three Sessions in batches of 200, with a delivery committed between two batches', async () => {
    const storage = new RecordingStorage();
    const clock = createManualClock('2030-01-01T08:00:00.000Z');
    const fake = createFakeSessions();
    // The due task's flush waits for the test, so that it lands while a bulk batch is being written.
    const flushGate = deferred();
    const sessions: SessionController = {
      async resolveAgent(sessionId) {
        const agent = await fake.resolveAgent(sessionId);
        return {
          followup: (message, meta) => agent.followup(message, meta),
          flush: async () => {
            await flushGate.promise;
            await agent.flush();
          },
        } satisfies ScheduleAgent;
      },
    };
    const flushedQueued = deferred();
    const svc = await createScheduleService({
      sessions,
      storage,
      clock,
      inspect: (event: ScheduleInspectionEvent) => {
        const sent = (event as { event?: AnyEventObject }).event;
        if (event.type === '@xstate.event' && sent?.type === 'delivery.flushed') flushedQueued.resolve();
      },
    });
    try {
      for (let i = 0; i < 1200; i++) {
        const view = await svc.callTool(`team-${i % 3}`, 'schedule_create', { title: `Sweep ${i}`, prompt: 'p', after_seconds: 3600 });
        expect('code' in view).toBe(false);
      }
      const due = await svc.callTool('other', 'schedule_create', { title: 'Due', prompt: 'p', after_seconds: 60 });
      if ('code' in due) throw new Error(due.code);
      const before = storage.written.length;

      // The due task's attempt starts and waits in its flush.
      await clock.advance(MINUTE);
      const firstBatch = deferred();
      const release = deferred();
      storage.hold = {
        when: (batch) => batch.puts.some((row) => row.pausedAt !== undefined),
        reached: firstBatch.resolve,
        release: release.promise,
      };
      const answer = svc.remote.bulk({ action: 'pause', filter: { text: 'sweep' } });
      await firstBatch.promise;
      // While the first batch is written, the delivery flushes and its commit joins the mailbox.
      flushGate.resolve();
      await flushedQueued.promise;
      release.resolve();

      expect(bulkOf(await answer)).toEqual({ action: 'pause', matched: 1200, done: 1200, skipped: [] });
      const written = storage.written
        .slice(before)
        .map((batch) =>
          batch.puts.some((row) => row.record.id === due.id)
            ? 'delivery'
            : `pause ${batch.puts.filter((row) => row.pausedAt !== undefined).length}`,
        );
      expect(written).toEqual(['pause 200', 'delivery', 'pause 200', 'pause 200', 'pause 200', 'pause 200', 'pause 200']);
      expect(fake.messages('other')).toHaveLength(1);
      const counts = (await svc.remote.counts({ sessionId: 'team-1' })) as ScheduleCounts;
      expect(counts.all).toMatchObject({ paused: 1200, ended: 1, total: 1201 });
      expect(counts.session).toMatchObject({ paused: 400, scheduled: 0, total: 400 });
    } finally {
      await svc.close();
    }
  });

  it('resolves its filter once: a task created while it runs is not swept in', async () => {
    const storage = new RecordingStorage();
    const h = await harness({ storage });
    for (let i = 0; i < 250; i++) await create(h, `s${i % 2}`, { title: 'Plants', after_seconds: 600 });
    const firstBatch = deferred();
    const release = deferred();
    storage.hold = { when: (batch) => batch.puts.length === 200, reached: firstBatch.resolve, release: release.promise };
    const answer = h.svc.remote.bulk({ action: 'pause', filter: { text: 'plants' } });
    await firstBatch.promise;
    // Queued behind the first batch, ahead of the second.
    const late = h.svc.callTool('s0', 'schedule_create', { title: 'Plants too', prompt: 'p', after_seconds: 600 });
    release.resolve();
    const view = await late;
    expect(bulkOf(await answer)).toMatchObject({ matched: 250, done: 250 });
    const entry = (await h.svc.remote.catalog()).find((e) => 'id' in view && e.record.id === view.id);
    expect(entry?.pausedAt).toBeUndefined();
  });

  it('counts the tasks it skips by reason, listing at most 20 ids of each', async () => {
    const h = await harness();
    for (let i = 0; i < 30; i++) await create(h, 's1', { title: `Walk ${i}`, after_seconds: 600 });
    await create(h, 's1', { title: 'Walk soon', after_seconds: 30 });
    await tick(h, MINUTE); // sch_31 is delivered and ends
    for (let i = 1; i <= 25; i++) await h.svc.remote.pause({ sessionId: 's1', id: `sch_${i}` });
    const paused = bulkOf(await h.svc.remote.bulk({ action: 'pause', filter: { sessionId: 's1' } }));
    expect(paused.matched).toBe(31);
    expect(paused.done).toBe(5);
    expect(paused.skipped).toEqual([
      { code: 'already_paused', count: 25, ids: Array.from({ length: 20 }, (_, i) => `sch_${i + 1}`) },
      { code: 'schedule_ended', count: 1, ids: ['sch_31'] },
    ]);
    const listed = bulkOf(
      await h.svc.remote.bulk({
        action: 'resume',
        tasks: [
          { sessionId: 's1', id: 'sch_1' },
          { sessionId: 's2', id: 'sch_2' },
          { sessionId: 's1', id: 'sch_404' },
          { sessionId: 's1', id: 'sch_1' },
        ],
      }),
    );
    expect(listed).toEqual({
      action: 'resume',
      matched: 3,
      done: 1,
      skipped: [{ code: 'schedule_not_found', count: 2, ids: ['sch_2', 'sch_404'] }],
    });
    expect(bulkOf(await h.svc.remote.bulk({ action: 'resume', tasks: [{ sessionId: 's1', id: 'sch_1' }] })).skipped).toEqual([
      { code: 'not_paused', count: 1, ids: ['sch_1'] },
    ]);
  });

  it('runs failing tasks now: their deliveries are retried at once', async () => {
    const h = await harness({ config: { retry: { initialMs: 60 * MINUTE, maxMs: 60 * MINUTE } } });
    for (let i = 0; i < 3; i++) await create(h, 's1', { title: `Call ${i}`, after_seconds: 60 });
    await create(h, 's2', { title: 'Later', after_seconds: 6000 });
    h.sessions.failNext('s1', 'resolve');
    await tick(h, MINUTE);
    expect(((await h.svc.remote.counts()) as ScheduleCounts).all).toMatchObject({ failing: 3, overdue: 3 });
    const result = bulkOf(await h.svc.remote.bulk({ action: 'trigger', filter: { status: 'failing' } }));
    expect(result).toEqual({ action: 'trigger', matched: 3, done: 3, skipped: [] });
    await tick(h, 0);
    expect(h.sessions.messages('s1')).toHaveLength(3);
    expect(((await h.svc.remote.counts()) as ScheduleCounts).all).toMatchObject({ failing: 0, overdue: 0, ended: 3, scheduled: 1 });
  });

  it('answers a call repeated with its callId with the first answer, and writes nothing more', async () => {
    const storage = new RecordingStorage();
    const h = await harness({ storage });
    for (let i = 0; i < 3; i++) await create(h, 's1', { after_seconds: 600 });
    const request = { action: 'pause', note: 'holiday', filter: { sessionId: 's1' } } as const;
    const first = await h.svc.remote.bulk(request, { callId: 'op-1' });
    expect(first).toEqual({ action: 'pause', matched: 3, done: 3, skipped: [] });
    expect((await h.svc.remote.catalog()).map((entry) => entry.pauseNote)).toEqual(['holiday', 'holiday', 'holiday']);
    const writes = storage.written.length;
    expect(await h.svc.remote.bulk(request, { callId: 'op-1' })).toEqual(first);
    expect(storage.written.length).toBe(writes);
    expect(await h.svc.remote.bulk({ ...request, action: 'resume', note: undefined } as never, { callId: 'op-1' })).toMatchObject({
      code: 'idempotency_conflict',
    });
    expect(await h.svc.remote.bulk(request, { callId: 'op-2' })).toMatchObject({
      done: 0,
      skipped: [{ code: 'already_paused', count: 3 }],
    });
  });

  it.each([
    [{ action: 'stop', filter: {} }],
    [{ action: 'pause' }],
    [{ action: 'pause', filter: {}, tasks: [] }],
    [{ action: 'resume', note: 'why', filter: {} }],
    [{ action: 'pause', note: '', filter: {} }],
    [{ action: 'pause', filter: { status: 'sleeping' } }],
    [{ action: 'pause', tasks: [{ id: 'sch_1' }] }],
    [{ action: 'pause', filter: {}, extra: 1 }],
  ])('refuses %j with invalid_selector', async (request) => {
    const h = await harness();
    expect(await h.svc.remote.bulk(request as never)).toMatchObject({ code: 'invalid_selector' });
  });
});
