// A task's failure status is stored with its row (docs/delivery.md): written once per failed
// attempt on the failure path, restored after a restart with its attempts counted on, dropped by
// the committed delivery (no write of its own), kept in memory when its write fails, and its cause
// capped at 2,000 characters — on the memory storage and the JSON file storage.
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { CatalogEntry, DeliveryFailure } from '../../src/domain/tasks/types.ts';
import type { SessionController } from '../../src/ports.ts';
import { closeAll, closeHarness, create, type Harness, harness, MINUTE, tempDir, tick } from '../support/harness.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
const RETRY = { retry: { initialMs: 1000, maxMs: 8000 } };

/** The failure status the catalog shows for the task. */
async function failureOf(h: Harness, id: string): Promise<DeliveryFailure | undefined> {
  const entries: CatalogEntry[] = await h.svc.remote.catalog();
  return entries.find((entry) => entry.record.id === id)?.failure;
}

/** The failure status the memory storage holds in the task's row. */
function storedFailure(storage: MemoryStorage, id: string): DeliveryFailure | undefined {
  const tasks = (storage.document() as { tasks: Array<{ record: { id: string }; failure?: DeliveryFailure }> }).tasks;
  return tasks.find((row) => row.record.id === id)?.failure;
}

/** Sessions whose resolve always fails while `down.value` is true. */
function flakySessions(down: { value: boolean }, message = 'Session store offline'): SessionController & { resolves: number } {
  const sessions = {
    resolves: 0,
    async resolveAgent(sessionId: string) {
      sessions.resolves++;
      if (down.value) throw new Error(message);
      return {
        followup: () => ({ messageId: `msg-${sessionId}-${sessions.resolves}` }),
        flush: async () => undefined,
      };
    },
  };
  return sessions;
}

describe('failure status stored with the row', () => {
  it('each failed attempt writes its status once; the committed delivery clears it with no write of its own', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage, config: RETRY });
    const task = await create(h, 's1', { after_seconds: 60 });
    h.sessions.failNext('s1', 'flush');
    h.sessions.failNext('s1', 'flush');
    const before = storage.commitCount;

    await tick(h, MINUTE); // attempt 1 fails
    expect(storage.commitCount).toBe(before + 1);
    expect(storedFailure(storage, task.id)).toEqual({
      attempts: 1,
      lastAt: '2030-01-01T08:01:00.000Z',
      stage: 'flush',
      message: 'fake Session s1: flush failed',
      nextRetryAt: '2030-01-01T08:01:01.000Z',
    });
    expect(await failureOf(h, task.id)).toEqual(storedFailure(storage, task.id));

    await tick(h, 1000); // attempt 2 fails
    expect(storage.commitCount).toBe(before + 2);
    expect(storedFailure(storage, task.id)).toMatchObject({ attempts: 2, nextRetryAt: '2030-01-01T08:01:03.000Z' });

    await tick(h, 2000); // attempt 3 is delivered: one commit, the delivery's, and the status is gone
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(storage.commitCount).toBe(before + 3);
    expect(storedFailure(storage, task.id)).toBeUndefined();
    expect(await failureOf(h, task.id)).toBeUndefined();
  });

  it('a successful delivery writes its row once, and nothing else', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage });
    await create(h, 's1', { every_seconds: 60 });
    const before = storage.commitCount;
    await tick(h, MINUTE);
    await tick(h, MINUTE);
    expect(h.sessions.messages('s1')).toHaveLength(2);
    expect(storage.commitCount).toBe(before + 2);
  });

  it('survives close and reopen of the memory storage: restored, tried again at once, attempts counted on', async () => {
    const storage = new MemoryStorage();
    const down = { value: true };
    const sessions = flakySessions(down);
    const h = await harness({ start: T0, storage, controller: sessions, config: RETRY });
    const task = await create(h, 's1', { every_seconds: 3600 });
    await tick(h, 60 * MINUTE);
    await tick(h, 1000);
    expect(await failureOf(h, task.id)).toMatchObject({ attempts: 2, stage: 'resolve', message: 'Session store offline' });
    await closeHarness(h);

    const again = await harness({ clock: h.clock, storage, controller: sessions, config: RETRY });
    expect(await failureOf(again, task.id)).toMatchObject({ attempts: 2, stage: 'resolve' });
    await tick(again, 0); // a restored task that is due is tried again at once
    expect(await failureOf(again, task.id)).toMatchObject({ attempts: 3, stage: 'resolve', nextRetryAt: '2030-01-01T09:00:02.000Z' });
    expect(storedFailure(storage, task.id)).toMatchObject({ attempts: 3 });

    down.value = false;
    await tick(again, 1000);
    expect(await failureOf(again, task.id)).toBeUndefined();
    expect(storedFailure(storage, task.id)).toBeUndefined();
  });

  it('survives close and reopen of the JSON file storage, and the failure is gone after the delivery', async () => {
    const path = join(tempDir(), 'schedule.json');
    const down = { value: true };
    const sessions = flakySessions(down);
    const open = (clock?: Harness['clock']): Promise<Harness> =>
      harness({
        ...(clock === undefined ? { start: T0 } : { clock }),
        storage: jsonFileStorage({ path }),
        controller: sessions,
        config: RETRY,
      });
    const h = await open();
    const task = await create(h, 's1', { after_seconds: 60 });
    await tick(h, MINUTE);
    await closeHarness(h);

    const again = await open(h.clock);
    expect(await failureOf(again, task.id)).toEqual({
      attempts: 1,
      lastAt: '2030-01-01T08:01:00.000Z',
      stage: 'resolve',
      message: 'Session store offline',
      nextRetryAt: '2030-01-01T08:01:01.000Z',
    });
    down.value = false;
    await tick(again, 0);
    await closeHarness(again);

    const third = await open(h.clock);
    const [entry] = await third.svc.remote.catalog();
    expect(entry).toMatchObject({ status: 'inactive' });
    expect(entry?.failure).toBeUndefined();
  });

  it('a failure write that fails leaves the status in memory and is not retried; the next failure writes it', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage, config: RETRY });
    const task = await create(h, 's1', { after_seconds: 60 });
    h.sessions.failNext('s1', 'resolve');
    h.sessions.failNext('s1', 'resolve');
    storage.failNextCommit(); // the delivery commit writes nothing, so the failure write is the next commit
    const before = storage.commitCount;

    await tick(h, MINUTE);
    expect(storage.commitCount).toBe(before);
    expect(storedFailure(storage, task.id)).toBeUndefined();
    expect(await failureOf(h, task.id)).toMatchObject({ attempts: 1, stage: 'resolve' });
    expect(h.logs.some((l) => l.level === 'error' && l.msg === 'A schedule change could not be saved.')).toBe(true);

    await tick(h, 999); // nothing is written until the next attempt
    expect(storage.commitCount).toBe(before);
    await tick(h, 1); // attempt 2 fails, and its status is written
    expect(storage.commitCount).toBe(before + 1);
    expect(storedFailure(storage, task.id)).toMatchObject({ attempts: 2, stage: 'resolve' });
  });

  it('a receipt whose write failed is not written as a failure status: its own retried write records the delivery', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage, config: RETRY });
    const task = await create(h, 's1', { after_seconds: 60 });
    storage.failNextCommit();
    const before = storage.commitCount;
    await tick(h, MINUTE);
    expect(await failureOf(h, task.id)).toMatchObject({ stage: 'commit', attempts: 1 });
    expect(storage.commitCount).toBe(before);
    await tick(h, 1000);
    expect(storage.commitCount).toBe(before + 1);
    expect(storedFailure(storage, task.id)).toBeUndefined();
  });

  it('a long cause keeps its first and last characters, 2,000 in all', async () => {
    const storage = new MemoryStorage();
    const path = `/srv/agents/${'deep/'.repeat(800)}session.jsonl`;
    const message = `ENOENT: no such file or directory, open '${path}'`;
    const h = await harness({ start: T0, storage, controller: flakySessions({ value: true }, message), config: RETRY });
    const task = await create(h, 's1', { after_seconds: 60 });
    await tick(h, MINUTE);
    const stored = storedFailure(storage, task.id);
    expect(stored?.message).toHaveLength(2000);
    expect(stored?.message.startsWith('ENOENT: no such file or directory')).toBe(true);
    expect(stored?.message.endsWith("session.jsonl'")).toBe(true);
    expect(stored?.message).toContain(' … ');
  });

  it('an edit of a failing task keeps its failure status, in the view and in the stored row', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage, config: RETRY });
    const task = await create(h, 's1', { every_seconds: 3600 });
    h.sessions.failNext('s1', 'followup');
    await tick(h, 60 * MINUTE);
    const edited = await h.svc.callTool('s1', 'schedule_update', { id: task.id, title: 'Renamed' });
    expect(edited).toMatchObject({ title: 'Renamed', failure: { attempts: 1, stage: 'followup' } });
    expect(storedFailure(storage, task.id)).toMatchObject({ attempts: 1, stage: 'followup' });
  });
});
