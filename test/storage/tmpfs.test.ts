// Real storage faults, not injected ones: the JSON storage on a small tmpfs (512 KiB) mounted
// inside the test. A full disk: every commit either fails with `persistence_uncertain` or is
// really durable (never a success that is not), a close during it keeps the journal, and once
// space is freed the refused changes go through and a reopen holds everything acknowledged. A
// read-only remount: opening answers a clear `persistence_uncertain` naming the directory and
// EROFS and changes nothing; an open storage's commits are refused until the remount back to
// read-write. Mounting needs root (CI runs as root); elsewhere the file says why it cannot run,
// and in CI it fails rather than pass without running.
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { journalPathFor, loadDomainFiles } from '../../src/adapters/loadDomain.ts';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { row } from './fixtures.ts';
import { filesIn } from './tempFiles.ts';

const isRoot = process.getuid?.() === 0;
const why = isRoot ? undefined : `mounting a tmpfs needs root (uid ${String(process.getuid?.())})`;
if (why !== undefined && process.env.CI) throw new Error(`the tmpfs fault tests must run in CI, which runs as root: ${why}`);

const run = (command: string, ...args: string[]): void => {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
};

/** A row whose prompt is big enough that each journal line needs new pages of the tmpfs. */
const bigRow = (n: number): TaskRow => {
  const base = row(n);
  return { ...base, record: { ...base.record, prompt: `${n}: ${'x'.repeat(3000)}` } };
};

/** Fills the file system at `dir` until a write fails with ENOSPC; answers the filler's path. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const block = Buffer.alloc(4096, 0x61);
  try {
    for (;;) writeSync(fd, block);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return path;
}

const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok' as const,
    (error: unknown) => error,
  );

if (why !== undefined) {
  console.warn(`test/storage/tmpfs.test.ts: real disk-full and read-only faults not run: ${why}`);
  describe('real storage faults on a tmpfs', () => {
    it(`are not run here: ${why}`, () => {
      expect(isRoot).toBe(false);
    });
  });
} else {
  describe('real storage faults on a tmpfs', () => {
    let mountPoint = '';
    let dataDir = '';
    let round = 0;

    beforeAll(() => {
      mountPoint = mkdtempSync(join(tmpdir(), 'agent-schedule-tmpfs-'));
      run('mount', '-t', 'tmpfs', '-o', 'size=512k,mode=0755', 'tmpfs', mountPoint);
    });

    afterAll(() => {
      spawnSync('mount', ['-o', 'remount,rw', mountPoint]);
      const result = spawnSync('umount', [mountPoint]);
      if (result.status !== 0) spawnSync('umount', ['-l', mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    });

    beforeEach(() => {
      dataDir = join(mountPoint, `domain-${++round}`);
      mkdirSync(dataDir);
    });

    afterEach(() => {
      spawnSync('mount', ['-o', 'remount,rw', mountPoint]);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('a full disk: each commit fails with persistence_uncertain or is durable; after freeing space nothing acknowledged is lost', async () => {
      const path = join(dataDir, 'schedule.json');
      const storage = jsonFileStorage({ path });
      await storage.open();
      const acknowledged = new Set<string>();
      for (let n = 1; n <= 5; n++) {
        await storage.commit({ puts: [bigRow(n)], deletes: [] });
        acknowledged.add(`sch_${n}`);
      }
      const filler = fill(mountPoint);

      let refused = 0;
      for (let n = 6; n <= 30; n++) {
        const result = await outcome(storage.commit({ puts: [bigRow(n)], deletes: [] }));
        if (result === 'ok') acknowledged.add(`sch_${n}`);
        else {
          expect(result).toBeInstanceOf(ScheduleError);
          expect(result).toMatchObject({ code: 'persistence_uncertain', cause: { code: 'ENOSPC' } });
          refused++;
        }
      }
      expect(refused).toBeGreaterThan(10);
      // Whatever was acknowledged while the disk was full is on disk now.
      const during = new Set((await loadDomainFiles(path)).state.snapshot().tasks.map((t) => t.record.id));
      for (const id of acknowledged) expect(during.has(id), id).toBe(true);
      // Closing cannot rewrite schedule.json: close reports it and the journal keeps everything.
      expect(await outcome(storage.close())).toMatchObject({ code: 'persistence_uncertain' });
      expect(existsSync(journalPathFor(path))).toBe(true);

      unlinkSync(filler);
      const again = jsonFileStorage({ path });
      const reopened = new Set((await again.open()).tasks.map((t) => t.record.id));
      for (const id of acknowledged) expect(reopened.has(id), id).toBe(true);
      await again.commit({ puts: [bigRow(31)], deletes: [] });
      await again.close();
      const final = new Set((await loadDomainFiles(path)).state.snapshot().tasks.map((t) => t.record.id));
      for (const id of [...acknowledged, 'sch_31']) expect(final.has(id), id).toBe(true);
      expect(existsSync(journalPathFor(path))).toBe(false);
    });

    it('a full disk before the first commit: the document cannot be written, the commit is refused, and works once space is freed', async () => {
      const path = join(dataDir, 'schedule.json');
      const storage = jsonFileStorage({ path });
      await storage.open();
      const filler = fill(mountPoint);
      expect(await outcome(storage.commit({ puts: [bigRow(1)], deletes: [] }))).toMatchObject({ code: 'persistence_uncertain' });
      unlinkSync(filler);
      await storage.commit({ puts: [bigRow(2)], deletes: [] });
      await storage.close();
      expect((await loadDomainFiles(path)).state.snapshot().tasks.map((t) => t.record.id)).toEqual(['sch_2']);
    });

    it('a read-only remount: opening is refused with a clear error naming the directory, and nothing changes', async () => {
      const path = join(dataDir, 'schedule.json');
      writeFileSync(path, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
      const before = filesIn(dataDir);
      run('mount', '-o', 'remount,ro', mountPoint);
      const error = await outcome(jsonFileStorage({ path }).open());
      expect(error).toBeInstanceOf(ScheduleError);
      expect(error).toMatchObject({ code: 'persistence_uncertain' });
      expect((error as Error).message).toContain(dataDir);
      expect((error as Error).message).toContain('EROFS');
      expect(filesIn(dataDir)).toEqual(before);
      // A data directory that does not exist yet on the read-only file system: the same error.
      const missing = join(mountPoint, 'not-there', 'schedule.json');
      expect(await outcome(jsonFileStorage({ path: missing }).open())).toMatchObject({ code: 'persistence_uncertain' });
    });

    it('a read-only remount under an open storage: commits are refused until it is writable again, and none acknowledged is lost', async () => {
      const path = join(dataDir, 'schedule.json');
      writeFileSync(path, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
      const storage = jsonFileStorage({ path });
      await storage.open();
      run('mount', '-o', 'remount,ro', mountPoint);
      for (let n = 2; n <= 4; n++) {
        expect(await outcome(storage.commit({ puts: [row(n)], deletes: [] }))).toMatchObject({
          code: 'persistence_uncertain',
          cause: { code: 'EROFS' },
        });
      }
      run('mount', '-o', 'remount,rw', mountPoint);
      await storage.commit({ puts: [row(5)], deletes: [] });
      await storage.close();
      const again = jsonFileStorage({ path });
      expect((await again.open()).tasks.map((t) => t.record.id)).toEqual(['sch_1', 'sch_5']);
      await again.close();
    });
  });
}
