// Injected file-system failures (through the storage's fs seam): a failed journal write rejects
// every commit it held with persistence_uncertain and leaves the previous state readable; the
// storage recovers on the next write; a failed compaction loses nothing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { journalPathFor, loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import { row } from './fixtures.ts';
import { type FaultPoint, FaultyFileSystem, removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

async function openWith(fs: FaultyFileSystem, compaction?: { minBytes: number; ratio: number }) {
  const path = join(tempDir(), 'schedule.json');
  const storage = jsonFileStorage(compaction === undefined ? { path, fs } : { path, fs, compaction });
  await storage.open();
  return { path, storage };
}

const outcome = (promise: Promise<void>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => error,
  );

describe('jsonFileStorage faults', () => {
  it.each<FaultPoint>(['sync', 'write', 'shortWrite'])(
    'a failing journal %s rejects every commit of that write and changes nothing',
    async (point) => {
      const fs = new FaultyFileSystem();
      const { path, storage } = await openWith(fs);
      await storage.commit({ puts: [row(1)], deletes: [] });
      fs.failNext(point, '.journal');
      const results = await Promise.all([
        outcome(storage.commit({ puts: [row(2)], deletes: [] })),
        outcome(storage.commit({ puts: [], deletes: ['sch_1'] })),
        outcome(storage.commit({ puts: [row(3)], deletes: [] })),
      ]);
      for (const result of results) {
        expect(result).toBeInstanceOf(ScheduleError);
        expect(result).toMatchObject({ code: 'persistence_uncertain' });
        expect((result as Error).cause).toMatchObject({ code: 'EIO' });
      }
      // the next write truncates whatever the failed one left and lands cleanly
      await storage.commit({ puts: [row(4)], deletes: [] });
      expect((await loadDomainFiles(path)).state.snapshot()).toEqual({ tasks: [row(1), row(4)], nextTaskNumber: 5 });
      await storage.close();
      const reopened = jsonFileStorage({ path });
      expect(await reopened.open()).toEqual({ tasks: [row(1), row(4)], nextTaskNumber: 5 });
      await reopened.close();
    },
  );

  it('a failing truncate of a dirty journal rejects that write; the one after repairs it', async () => {
    const fs = new FaultyFileSystem();
    const { path, storage } = await openWith(fs);
    fs.failNext('shortWrite', '.journal');
    expect(await outcome(storage.commit({ puts: [row(1)], deletes: [] }))).toMatchObject({ code: 'persistence_uncertain' });
    fs.failNext('truncate', '.journal');
    expect(await outcome(storage.commit({ puts: [row(2)], deletes: [] }))).toMatchObject({ code: 'persistence_uncertain' });
    await storage.commit({ puts: [row(3)], deletes: [] });
    expect((await loadDomainFiles(path)).state.snapshot()).toEqual({ tasks: [row(3)], nextTaskNumber: 4 });
    await storage.close();
  });

  it('a failing rename during a background compaction loses nothing and is reported to onCompactionError', async () => {
    const fs = new FaultyFileSystem();
    const path = join(tempDir(), 'schedule.json');
    // an existing document, so the first rename is the compaction's (not the document a first commit writes)
    writeFileSync(path, '{"version":1,"tasks":[]}');
    const errors: unknown[] = [];
    const storage = jsonFileStorage({ path, fs, compaction: { minBytes: 0, ratio: 0 }, onCompactionError: (e) => errors.push(e) });
    await storage.open();
    fs.failNext('rename', 'schedule.json');
    await storage.commit({ puts: [row(1)], deletes: [] });
    await storage.commit({ puts: [row(2)], deletes: [] });
    await storage.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'EIO' });
    expect(readdirSync(join(path, '..'))).toEqual(['schedule.json']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ tasks: [{ record: { id: 'sch_1' } }, { record: { id: 'sch_2' } }] });
  });

  it.each<FaultPoint>(['rename', 'sync'])(
    'a failing %s of schedule.json at close rejects close but keeps the journal, so nothing is lost',
    async (point) => {
      const fs = new FaultyFileSystem();
      const { path, storage } = await openWith(fs);
      await storage.commit({ puts: [row(1), row(2)], deletes: [] });
      fs.failNext(point, /\.schedule\.json\.tmp-|schedule\.json$/);
      const error = await outcome(storage.close());
      expect(error).toMatchObject({ code: 'persistence_uncertain' });
      expect(existsSync(journalPathFor(path))).toBe(true);
      const again = jsonFileStorage({ path });
      expect(await again.open()).toEqual({ tasks: [row(1), row(2)], nextTaskNumber: 3 });
      await again.close();
      expect(existsSync(journalPathFor(path))).toBe(false);
    },
  );
});
