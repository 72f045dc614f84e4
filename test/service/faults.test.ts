// The fault matrix (docs/delivery.md): resolve, followup, flush or the storage write failing, for a
// one-shot and for a recurring task. Nothing is recorded while the fault lasts but the failure
// status (a Session fault's is written with the row); once it clears the retry delivers the
// reminder, records it once and clears the status.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { FailurePoint } from '../../src/testing.ts';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
type Fault = FailurePoint | 'storage';

/** The one task row the memory storage holds. */
const storedRow = (storage: MemoryStorage) =>
  (storage.document() as { tasks: Array<{ failure?: { stage: string; attempts: number } }> }).tasks[0] ?? {};
const faults: Fault[] = ['resolve', 'followup', 'flush', 'storage'];
const shapes = [
  { name: 'one-shot', args: { after_seconds: 60 }, recurring: false },
  { name: 'recurring', args: { every_seconds: 60 }, recurring: true },
] as const;

describe('fault matrix', () => {
  for (const fault of faults) {
    for (const shape of shapes) {
      it(`${fault} failing for a ${shape.name}: nothing recorded, then delivered once when the fault clears`, async () => {
        const storage = new MemoryStorage();
        const h = await harness({ start: T0, storage, config: { retry: { initialMs: 1000, maxMs: 8000 } } });
        const task = await create(h, 's1', shape.args);
        const commitsBefore = storage.commitCount;
        if (fault === 'storage') storage.failNextCommit();
        else h.sessions.failNext('s1', fault);
        await tick(h, MINUTE);

        // nothing recorded
        const [entry] = await h.svc.remote.catalog();
        expect(entry).toMatchObject({ status: 'active', record: { scheduledAt: '2030-01-01T08:01:00.000Z' } });
        expect(entry?.lastDelivery).toBeUndefined();
        expect(
          ((await h.svc.remote.history({ sessionId: 's1', id: task.id, limit: 10 })) as { records: readonly unknown[] }).records,
        ).toEqual([]);
        // Only the failure write (a Session fault's status, stored with the row) is committed.
        expect(storage.commitCount).toBe(commitsBefore + (fault === 'storage' ? 0 : 1));
        const stored = storedRow(storage);
        if (fault === 'storage') expect(stored.failure).toBeUndefined();
        else expect(stored.failure).toMatchObject({ stage: fault, attempts: 1 });
        const [view] = (await h.svc.callTool('s1', 'schedule_list', {})) as Array<{ state: string }>;
        expect(view?.state).toBe('overdue');
        // Only a storage fault can leave a flushed message behind (at-least-once).
        expect(h.sessions.messages('s1')).toHaveLength(fault === 'storage' ? 1 : 0);

        await tick(h, 1000); // the first retry comes exactly initialMs after the failed attempt
        const page = (await h.svc.remote.history({ sessionId: 's1', id: task.id, limit: 10 })) as {
          records: ReadonlyArray<{ scheduledAt: string; messageId: string }>;
        };
        expect(page.records).toHaveLength(1);
        expect(page.records[0]?.scheduledAt).toBe('2030-01-01T08:01:00.000Z');
        const flushed = h.sessions.messages('s1');
        expect(flushed.map((m) => m.messageId)).toContain(page.records[0]?.messageId);
        expect(flushed.at(-1)?.idempotencyKeys).toEqual([`${task.id}@2030-01-01T08:01:00.000Z`]);
        const [after] = await h.svc.remote.catalog();
        if (shape.recurring) expect(after).toMatchObject({ status: 'active', record: { scheduledAt: '2030-01-01T08:02:00.000Z' } });
        else expect(after?.status).toBe('inactive');
        expect(after?.failure).toBeUndefined();
        expect(storedRow(storage).failure).toBeUndefined();
        expect(h.logs.some((l) => l.level === 'warn' || l.level === 'error')).toBe(true);
      });
    }
  }

  it('retries back off exactly: initial, doubling, capped at maxMs', async () => {
    const h = await harness({ start: T0, config: { retry: { initialMs: 1000, maxMs: 4000 } } });
    await create(h, 's1', { after_seconds: 60 });
    for (let i = 0; i < 5; i++) h.sessions.failNext('s1', 'flush');
    await tick(h, MINUTE); // attempt 1 fails at 08:01:00
    const attempts = () => h.sessions.resolveCount('s1');
    expect(attempts()).toBe(1);
    const expectAttemptsAfter = async (ms: number, count: number) => {
      await tick(h, ms - 1);
      expect(attempts()).toBe(count - 1);
      await tick(h, 1);
      expect(attempts()).toBe(count);
    };
    await expectAttemptsAfter(1000, 2);
    await expectAttemptsAfter(2000, 3);
    await expectAttemptsAfter(4000, 4);
    await expectAttemptsAfter(4000, 5);
    await expectAttemptsAfter(4000, 6); // the sixth attempt succeeds
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('one Session failing to resolve does not hold up another Session due at the same time', async () => {
    const h = await harness({ start: T0, config: { retry: false } });
    await create(h, 'broken', { after_seconds: 60 });
    await create(h, 'fine', { after_seconds: 60 });
    h.sessions.failNext('broken', 'resolve');
    await tick(h, MINUTE);
    expect(h.sessions.messages('fine')).toHaveLength(1);
    expect(h.sessions.messages('broken')).toHaveLength(0);
  });

  it('with retry disabled, a parked task is tried again when a create is committed', async () => {
    const h = await harness({ start: T0, config: { retry: false } });
    await create(h, 's1', { after_seconds: 60 });
    h.sessions.failNext('s1', 'flush');
    await tick(h, MINUTE);
    await tick(h, 10 * MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(0);
    expect(h.clock.pendingTimers).toBe(0); // no periodic wake-up
    await create(h, 's2', { after_seconds: 3600 });
    await h.svc.whenIdle();
    expect(h.sessions.messages('s1')).toHaveLength(1);
  });

  it('a followup that throws for one message still delivers the other messages of the attempt', async () => {
    const h = await harness({ start: T0, config: { retry: false } });
    const a = await create(h, 's1', { after_seconds: 60, prompt: 'first' });
    const b = await create(h, 's1', { after_seconds: 60, prompt: 'second' });
    h.sessions.failNext('s1', 'followup');
    await tick(h, MINUTE);
    const keys = h.sessions.messages('s1').flatMap((m) => m.idempotencyKeys);
    expect(keys).toEqual([`${b.id}@2030-01-01T08:01:00.000Z`]);
    const catalog = await h.svc.remote.catalog();
    expect(catalog.find((e) => e.record.id === a.id)?.status).toBe('active');
    expect(catalog.find((e) => e.record.id === b.id)?.status).toBe('inactive');
  });
});
