// The memory storage: the conformance suite, plus its test hooks (document(), failNextCommit).
import { type MemoryStorage, memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { describeStorageConformance, type Store } from './conformance.ts';
import { deliveredRow, row } from './fixtures.ts';

function memoryStore(initial?: unknown): Store {
  let last: MemoryStorage | undefined;
  return {
    storage: () => {
      last = last === undefined ? memoryStorage(initial) : memoryStorage(last.document());
      return last;
    },
    document: () => (last ?? memoryStorage(initial)).document(),
  };
}

describeStorageConformance('memoryStorage', { fresh: () => memoryStore(), seeded: (document) => memoryStore(document) });

describe('memoryStorage hooks', () => {
  it('failNextCommit rejects exactly the next commit with persistence_uncertain and keeps the previous state', async () => {
    const storage = memoryStorage();
    await storage.open();
    await storage.commit({ puts: [row(1)], deletes: [] });
    const cause = new Error('disk on fire');
    storage.failNextCommit(cause);
    const error = await storage.commit({ puts: [row(2)], deletes: ['sch_1'] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'persistence_uncertain', cause });
    expect(storage.document()).toMatchObject({ tasks: [{ record: { id: 'sch_1' } }] });
    await storage.commit({ puts: [row(2)], deletes: [] });
    expect(storage.commitCount).toBe(2);
    await storage.close();
    expect(await storage.open()).toEqual({ tasks: [row(1), row(2)], nextTaskNumber: 3 });
  });

  it('accepts the initial document as JSON text too', async () => {
    const storage = memoryStorage(JSON.stringify({ version: 1, nextTaskNumber: 4, tasks: [row(1)] }));
    expect(await storage.open()).toEqual({ tasks: [row(1)], nextTaskNumber: 4 });
    await expect(memoryStorage('{"version":1,').open()).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
  });

  it("copies an initial document value: opening leaves the caller's objects unchanged, and changing them later changes nothing stored", async () => {
    // The stored form: receipts refer to the record's prompt, and one row has no status.
    const stored = JSON.parse(encodeDocument({ tasks: [deliveredRow(1, 3, 'cron'), row(2)], nextTaskNumber: 3 })) as {
      tasks: Array<Record<string, unknown> & { record: { title: string } }>;
    };
    delete stored.tasks[1]?.status;
    const before = structuredClone(stored);
    const storage = memoryStorage(stored);
    const opened = await storage.open();
    expect(opened).toEqual({ tasks: [deliveredRow(1, 3, 'cron'), row(2)], nextTaskNumber: 3 });
    expect(stored).toEqual(before);
    (stored.tasks[0] as { record: { title: string } }).record.title = 'Changed later';
    stored.tasks.pop();
    await storage.close();
    expect(await storage.open()).toEqual({ tasks: [deliveredRow(1, 3, 'cron'), row(2)], nextTaskNumber: 3 });
  });

  it('refuses an initial document value that is not plain data with corrupt_schedule_log', async () => {
    const withFunction = { version: 1, tasks: [{ ...row(1), record: { ...row(1).record, title: () => 'x' } }] };
    await expect(memoryStorage(withFunction).open()).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
    const cyclic: Record<string, unknown> = { version: 1, tasks: [] };
    cyclic.self = cyclic;
    await expect(memoryStorage(cyclic).open()).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
  });
});
