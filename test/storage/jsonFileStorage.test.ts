import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { journalPathFor, loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import { encodeBatch, encodeDocument } from '../../src/domain/codec/index.ts';
import { waitUntil } from '../support/waitUntil.ts';
import { describeStorageConformance, type StorageHarness } from './conformance.ts';
import { deliveredRow, row } from './fixtures.ts';
import { FaultyFileSystem, filesIn, removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

const fileHarness = (compaction?: { minBytes: number; ratio: number }): StorageHarness => {
  const store = (path: string) => ({
    storage: () => jsonFileStorage(compaction === undefined ? { path } : { path, compaction }),
    document: () => JSON.parse(readFileSync(path, 'utf8')) as unknown,
  });
  return {
    fresh: () => store(join(tempDir(), 'schedule.json')),
    seeded: (document) => {
      const path = join(tempDir(), 'schedule.json');
      writeFileSync(path, JSON.stringify(document));
      return store(path);
    },
  };
};

describeStorageConformance('jsonFileStorage', fileHarness());
describeStorageConformance('jsonFileStorage (compacting after every write)', fileHarness({ minBytes: 0, ratio: 0 }));

const withoutLock = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).filter(([name]) => !name.endsWith('.lock')));

describe('jsonFileStorage files', () => {
  it('opening an absent domain writes nothing but the lock; closing an untouched domain leaves nothing', async () => {
    const dir = tempDir();
    const storage = jsonFileStorage({ path: join(dir, 'nested', 'schedule.json') });
    expect(await storage.open()).toEqual({ tasks: [], nextTaskNumber: 1 });
    expect(Object.keys(filesIn(join(dir, 'nested')))).toEqual(['schedule.json.lock']);
    await storage.close();
    expect(filesIn(join(dir, 'nested'))).toEqual({});
  });

  it('close() called while open() is still running waits for it, then closes and releases the lock', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    writeFileSync(path, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
    const storage = jsonFileStorage({ path });
    const opened = storage.open();
    const closed = storage.close();
    expect((await opened).tasks).toEqual([row(1)]);
    await closed;
    expect(Object.keys(filesIn(dir))).toEqual(['schedule.json']);
    await expect(storage.commit({ puts: [row(2)], deletes: [] })).rejects.toMatchObject({ code: 'internal_error' });
  });

  it('opening an existing domain changes no byte of it', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    writeFileSync(path, JSON.stringify({ version: 1, tasks: [{ sessionId: 's1', record: row(3).record }] }, null, 2));
    const before = filesIn(dir);
    const storage = jsonFileStorage({ path });
    await storage.open();
    expect(withoutLock(filesIn(dir))).toEqual(before);
    await storage.close();
    expect(filesIn(dir)).toEqual(before);
  });

  it('commits go to the journal; close folds them into schedule.json and removes journal and lock', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    const storage = jsonFileStorage({ path });
    await storage.open();
    await storage.commit({ puts: [row(1)], deletes: [], nextTaskNumber: 2 });
    await storage.commit({ puts: [deliveredRow(2, 3)], deletes: ['sch_1'] });
    // the first commit wrote the (empty) document before it created the journal
    expect(readFileSync(path, 'utf8')).toBe(encodeDocument({ tasks: [], nextTaskNumber: 1 }));
    expect(readFileSync(journalPathFor(path), 'utf8').split('\n')).toHaveLength(3);
    expect((await loadDomainFiles(path)).state.snapshot()).toEqual({ tasks: [deliveredRow(2, 3)], nextTaskNumber: 3 });
    await storage.close();
    expect(Object.keys(filesIn(dir))).toEqual(['schedule.json']);
    expect(readFileSync(path, 'utf8')).toBe(encodeDocument({ tasks: [deliveredRow(2, 3)], nextTaskNumber: 3 }));
  });

  it('the journal is compacted into schedule.json once it outgrows the threshold', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    const storage = jsonFileStorage({ path, compaction: { minBytes: 3000, ratio: 0 } });
    await storage.open();
    const lengths: number[] = [];
    for (let n = 1; n <= 12; n++) {
      await storage.commit({ puts: [deliveredRow(n, 2)], deletes: [] });
      await storage.idle();
      lengths.push(existsSync(journalPathFor(path)) ? readFileSync(journalPathFor(path)).length : 0);
    }
    expect(existsSync(path)).toBe(true);
    expect(lengths.some((l, i) => i > 0 && l < (lengths[i - 1] ?? 0))).toBe(true);
    expect(Math.max(...lengths)).toBeLessThan(3000 + 2000);
    const expected = { tasks: Array.from({ length: 12 }, (_, i) => deliveredRow(i + 1, 2)), nextTaskNumber: 13 };
    expect((await loadDomainFiles(path)).state.snapshot()).toEqual(expected);
    await storage.close();
  });

  it('a torn last journal line is ignored at open, left alone by open, and cut off by the next write', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    writeFileSync(path, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
    const good = `${encodeBatch({ puts: [row(2)], deletes: [], nextTaskNumber: 3 })}\n${encodeBatch({ puts: [], deletes: ['sch_1'] })}\n`;
    const torn = encodeBatch({ puts: [row(3)], deletes: [], nextTaskNumber: 4 }).slice(0, 40);
    writeFileSync(journalPathFor(path), good + torn);
    const before = filesIn(dir);

    const storage = jsonFileStorage({ path });
    expect(await storage.open()).toEqual({ tasks: [row(2)], nextTaskNumber: 3 });
    expect(withoutLock(filesIn(dir))).toEqual(before);

    await storage.commit({ puts: [row(4)], deletes: [] });
    const journal = readFileSync(journalPathFor(path), 'utf8');
    expect(journal).toBe(`${good}${encodeBatch({ puts: [row(4)], deletes: [], nextTaskNumber: 5 })}\n`);
    expect((await loadDomainFiles(path)).state.snapshot()).toEqual({ tasks: [row(2), row(4)], nextTaskNumber: 5 });
    await storage.close();
    expect(Object.keys(filesIn(dir))).toEqual(['schedule.json']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      nextTaskNumber: 5,
      tasks: [{ record: { id: 'sch_2' } }, { record: { id: 'sch_4' } }],
    });
  });

  it('a torn tail alone (nothing complete) opens as the document, and close rewrites it cleanly', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    writeFileSync(path, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
    writeFileSync(journalPathFor(path), '{"version":1,"puts":[{"sess');
    const storage = jsonFileStorage({ path });
    expect(await storage.open()).toEqual({ tasks: [row(1)], nextTaskNumber: 2 });
    await storage.close();
    expect(Object.keys(filesIn(dir))).toEqual(['schedule.json']);
  });

  it.each([
    ['a journal with changes', () => `${encodeBatch({ puts: [row(3)], deletes: [], nextTaskNumber: 4 })}\n`],
    ['an emptied journal (its changes folded into the missing document)', () => ''],
  ])('%s whose schedule.json is missing refuses the open, naming both files, and changes nothing', async (_name, journal) => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    writeFileSync(journalPathFor(path), journal());
    const before = filesIn(dir);
    const error = await jsonFileStorage({ path })
      .open()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'corrupt_schedule_log' });
    expect((error as Error).message).toContain('schedule.json.journal');
    expect((error as Error).message).toMatch(/schedule\.json\b(?!\.)/);
    expect(filesIn(dir)).toEqual(before);
    await expect(loadDomainFiles(path)).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
  });

  it('replaying a journal already folded into the document (a crash between rename and truncation) is harmless', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    const lines = [
      encodeBatch({ puts: [row(1)], deletes: [], nextTaskNumber: 2 }),
      encodeBatch({ puts: [row(2)], deletes: ['sch_1'], nextTaskNumber: 3 }),
      encodeBatch({ puts: [{ ...row(2), status: 'inactive' }], deletes: [] }),
    ];
    writeFileSync(path, encodeDocument({ tasks: [{ ...row(2), status: 'inactive' }], nextTaskNumber: 3 }));
    writeFileSync(journalPathFor(path), `${lines.join('\n')}\n`);
    expect((await loadDomainFiles(path)).state.snapshot()).toEqual({ tasks: [{ ...row(2), status: 'inactive' }], nextTaskNumber: 3 });
  });

  it('a complete journal line that does not decode rejects the open and leaves every file unchanged', async () => {
    for (const bad of ['{"version":1,"puts":[],"deletes":[]', '{"version":1,"puts":[],"deletes":[],"extra":1}', '', 'garbage']) {
      const dir = tempDir();
      const path = join(dir, 'schedule.json');
      writeFileSync(path, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
      writeFileSync(
        journalPathFor(path),
        `${encodeBatch({ puts: [row(2)], deletes: [] })}\n${bad}\n${encodeBatch({ puts: [row(3)], deletes: [] })}\n`,
      );
      const before = filesIn(dir);
      const error = await jsonFileStorage({ path })
        .open()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'corrupt_schedule_log' });
      expect(String((error as Error).message)).toContain('schedule.json.journal line 2');
      expect(filesIn(dir)).toEqual(before);
    }
  });
});

describe('jsonFileStorage group commit', () => {
  it('commits arriving during a write share the next write, and each resolves only when its write is durable', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    const fs = new FaultyFileSystem();
    const storage = jsonFileStorage({ path, fs });
    await storage.open();
    let release: () => void = () => undefined;
    fs.holdSync = { matches: (p) => p.endsWith('.journal'), until: new Promise((r) => (release = r)) };
    const settled: string[] = [];
    const first = storage.commit({ puts: [row(1)], deletes: [] }).then(() => settled.push('c1'));
    await waitUntil(() => fs.log.includes(`sync ${journalPathFor(path)}`), "the first commit's journal sync");
    const rest = [2, 3, 4].map((n) => storage.commit({ puts: [row(n)], deletes: [] }).then(() => settled.push(`c${n}`)));
    // c1 is held in its sync: a later commit that resolved before its own write would come first in `settled`.
    fs.holdSync = undefined;
    release();
    await Promise.all([first, ...rest]);
    expect(settled).toEqual(['c1', 'c2', 'c3', 'c4']);
    const journalOps = fs.log.filter((op) => op.endsWith('.journal') && (op.startsWith('write') || op.startsWith('sync')));
    expect(journalOps.map((op) => op.split(' ')[0])).toEqual(['write', 'sync', 'write', 'sync']);
    expect(readFileSync(journalPathFor(path), 'utf8').trimEnd().split('\n')).toHaveLength(4);
    await storage.close();
  });

  it('commits made in one synchronous burst go out in a single write', async () => {
    const dir = tempDir();
    const path = join(dir, 'schedule.json');
    const fs = new FaultyFileSystem();
    const storage = jsonFileStorage({ path, fs });
    await storage.open();
    await Promise.all(Array.from({ length: 10 }, (_, i) => storage.commit({ puts: [row(i + 1)], deletes: [] })));
    expect(fs.log.filter((op) => op === `write ${journalPathFor(path)}`)).toHaveLength(1);
    await storage.close();
  });
});
