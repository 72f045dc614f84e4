// A row the service froze before writing it is kept by the storage as that very object (the table
// and the task actors hold the same one); any other row is kept as a checked copy, so changing the
// caller's object later changes nothing stored.
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { freezeRow, isFrozenRow } from '../../src/domain/tasks/frozenRows.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { deliveredRow, row } from './fixtures.ts';
import { filesIn, removeTempDirs, tempDir } from './tempFiles.ts';

afterAll(removeTempDirs);

describe('frozen rows', () => {
  it('freezeRow freezes the row all the way down and records it; another frozen-looking row is not recorded', () => {
    const frozen = freezeRow(structuredClone(deliveredRow(1, 2)));
    expect(isFrozenRow(frozen)).toBe(true);
    expect(Object.isFrozen(frozen.record)).toBe(true);
    expect(Object.isFrozen(frozen.deliveryHistory?.records[0])).toBe(true);
    expect(() => {
      (frozen.record as { title: string }).title = 'changed';
    }).toThrow(TypeError);
    expect(isFrozenRow(Object.freeze(structuredClone(row(2))))).toBe(false);
    expect(isFrozenRow(undefined)).toBe(false);
  });

  it('memory storage keeps a frozen row itself and a copy of any other', async () => {
    const storage = memoryStorage();
    await storage.open();
    const frozen = freezeRow(structuredClone(row(1)));
    const plain = structuredClone(row(2)) as TaskRow;
    await storage.commit({ puts: [frozen, plain], deletes: [] });
    await storage.close();
    const reopened = await storage.open();
    expect(reopened.tasks[0]).toBe(frozen);
    expect(reopened.tasks[1]).not.toBe(plain);
    expect(reopened.tasks[1]).toEqual(plain);
    await storage.close();
  });

  it('the file storage journals a frozen row recording a delivery as a delta, and reopens it', async () => {
    const dir = tempDir();
    const path = `${dir}/schedule.json`;
    const storage = jsonFileStorage({ path });
    await storage.open();
    await storage.commit({ puts: [structuredClone(deliveredRow(1, 1))], deletes: [] });
    const next = freezeRow(structuredClone(deliveredRow(1, 2)));
    await storage.commit({ puts: [next], deletes: [] });
    const journal = Object.entries(filesIn(dir)).find(([name]) => name !== 'schedule.json' && !name.endsWith('.lock'));
    const lines = Buffer.from(journal?.[1] ?? '', 'base64')
      .toString('utf8')
      .trim()
      .split('\n');
    expect(lines.at(-1)).toContain('"deliveries"');
    await storage.close();
    const again = jsonFileStorage({ path });
    expect((await again.open()).tasks).toEqual([deliveredRow(1, 2)]);
    await again.close();
  });
});
