// The memory storage: the conformance suite, plus its test hooks (document(), failNextCommit).
import { type MemoryStorage, memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { describeStorageConformance, type Store } from './conformance.ts';
import { row } from './fixtures.ts';

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
});
