// The owner lock: a second opener is refused while the first holds the domain; a lock left by a
// process that is gone (or by an earlier process with this pid, or a damaged lock file) is taken
// over; close and a rejected open release it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StorageLockedError } from '../../src/adapters/fileLock.ts';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { lockPathFor } from '../../src/adapters/loadDomain.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import { FaultFs } from '../reliability/faultFs.ts';
import { row } from './fixtures.ts';
import { filesIn, removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

const deadPid = (): number => {
  const child = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return child.pid ?? 999_999;
};

describe('jsonFileStorage lock', () => {
  it('a second opener is refused with a clear StorageLockedError until the first closes', async () => {
    const path = join(tempDir(), 'schedule.json');
    const first = jsonFileStorage({ path });
    await first.open();
    await first.commit({ puts: [row(1)], deletes: [] });
    const error = await jsonFileStorage({ path })
      .open()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageLockedError);
    expect(error).toBeInstanceOf(ScheduleError);
    expect(error).toMatchObject({ code: 'storage_locked', ownerPid: process.pid, lockPath: lockPathFor(path) });
    expect((error as Error).message).toContain('in use');
    await first.close();
    const second = jsonFileStorage({ path });
    expect((await second.open()).tasks).toEqual([row(1)]);
    await second.close();
  });

  it('a lock held by another live process refuses the open', async () => {
    const path = join(tempDir(), 'schedule.json');
    writeFileSync(lockPathFor(path), JSON.stringify({ pid: process.ppid, token: 'other' }));
    await expect(jsonFileStorage({ path }).open()).rejects.toMatchObject({ ownerPid: process.ppid });
    expect(JSON.parse(readFileSync(lockPathFor(path), 'utf8'))).toEqual({ pid: process.ppid, token: 'other' });
  });

  it.each([
    ['a dead process', () => JSON.stringify({ pid: deadPid(), token: 'dead' })],
    ['an earlier process with this same pid', () => JSON.stringify({ pid: process.pid, token: 'before-restart' })],
    ['a damaged lock file', () => 'not json'],
  ])('a stale lock from %s is taken over, and close releases it', async (_name, content) => {
    const path = join(tempDir(), 'schedule.json');
    writeFileSync(lockPathFor(path), content());
    const storage = jsonFileStorage({ path });
    await storage.open();
    expect(JSON.parse(readFileSync(lockPathFor(path), 'utf8'))).toMatchObject({ pid: process.pid });
    await storage.close();
    expect(existsSync(lockPathFor(path))).toBe(false);
  });

  it('a rejected open releases the lock', async () => {
    const path = join(tempDir(), 'schedule.json');
    writeFileSync(path, '{"version": 2, "tasks": []}');
    await expect(jsonFileStorage({ path }).open()).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
    expect(existsSync(lockPathFor(path))).toBe(false);
  });

  it.each(['EROFS', 'EACCES'] as const)(
    'a data directory where the lock cannot be created (%s) refuses the open with a clear error naming it',
    async (errno) => {
      const dir = tempDir();
      const path = join(dir, 'schedule.json');
      writeFileSync(path, '{"version":1,"tasks":[]}');
      const before = filesIn(dir);
      const fs = new FaultFs();
      fs.fail('open', /schedule\.json\.lock/, errno);
      const error = await jsonFileStorage({ path, fs })
        .open()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ScheduleError);
      expect(error).toMatchObject({ code: 'persistence_uncertain' });
      expect((error as Error).message).toContain(dir);
      expect((error as Error).message).toContain(errno);
      expect(filesIn(dir)).toEqual(before);
    },
  );
});
