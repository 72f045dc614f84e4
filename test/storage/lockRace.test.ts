// Take-over of the owner lock under races and reused pids. Two storages started together on a
// domain whose lock names a dead process must never both open (an in-memory file system with a
// seeded delay before every operation interleaves them in every order); the one that opens keeps
// every change it acknowledged. A lock naming a live process that is not its owner — the pid was
// reused after a restart (another start time) or the machine rebooted (another boot id) — is
// taken over without anyone deleting a file; the lock records the owner's boot id and start time.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StorageLockedError } from '../../src/adapters/fileLock.ts';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { lockPathFor } from '../../src/adapters/loadDomain.ts';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import { MemoryFs } from '../reliability/powerLossFs.ts';
import { random } from './crashTrial.ts';
import { row } from './fixtures.ts';
import { runLockRace } from './lockRace.ts';
import { removeTempDirs, tempDir } from './tempFiles.ts';

afterEach(removeTempDirs);

/** A pid no process has (above the largest pid Linux hands out). */
const DEAD_PID = 99_999_999;
const DIR = '/data';
const PATH = `${DIR}/schedule.json`;

/** A delay of 0–3 macrotasks, chosen by a seeded generator. */
const seededDelay = (seed: number) => {
  const rand = random(seed);
  return async () => {
    for (let hops = Math.floor(rand() * 4); hops > 0; hops--) await new Promise((resolve) => setImmediate(resolve));
  };
};

async function raceOnce(seed: number): Promise<{ opened: number; lost: number }> {
  const fs = new MemoryFs({ delay: seededDelay(seed) });
  fs.mkdirDurable(DIR);
  fs.writeDurable(PATH, encodeDocument({ tasks: [row(1)], nextTaskNumber: 2 }));
  fs.writeDurable(lockPathFor(PATH), JSON.stringify({ pid: DEAD_PID, token: 'dead' }));
  const storages = [jsonFileStorage({ path: PATH, fs }), jsonFileStorage({ path: PATH, fs })];
  const results = await Promise.allSettled(storages.map((s) => s.open()));
  for (const result of results) {
    if (result.status === 'rejected' && !(result.reason instanceof StorageLockedError)) throw result.reason;
  }
  const owners = storages.filter((_, i) => results[i]?.status === 'fulfilled');
  // Each owner writes a task of its own; both are acknowledged only if both really own the domain.
  const acknowledged: number[] = [];
  await Promise.all(
    owners.map(async (storage, i) => {
      const n = 10 + i;
      await storage.commit({ puts: [row(n)], deletes: [], nextTaskNumber: n + 1 });
      acknowledged.push(n);
    }),
  );
  await Promise.allSettled(owners.map((s) => s.close()));
  const reopened = jsonFileStorage({ path: PATH, fs });
  const ids = new Set((await reopened.open()).tasks.map((t) => t.record.id));
  await reopened.close();
  return { opened: owners.length, lost: acknowledged.filter((n) => !ids.has(`sch_${n}`)).length };
}

describe('stale lock take-over', () => {
  it('two storages started together on a lock naming a dead process: exactly one opens, nothing acknowledged is lost', async () => {
    let doubleOpens = 0;
    let lost = 0;
    let noneOpened = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const round = await raceOnce(seed);
      if (round.opened === 2) doubleOpens++;
      if (round.opened === 0) noneOpened++;
      lost += round.lost;
    }
    expect({ doubleOpens, lost, noneOpened }).toEqual({ doubleOpens: 0, lost: 0, noneOpened: 0 });
  });

  it('two processes started together on a lock naming an exited process: exactly one opens, 20 rounds', async () => {
    const figures = await runLockRace({ rounds: 20, seed: 11 });
    expect(figures).toMatchObject({ rounds: 20, doubleOpens: 0, noOpens: 0, lostWrites: 0 });
    expect(figures.refusals).toEqual({ 'StorageLockedError storage_locked': 20 });
  });

  it('the lock records the owner’s pid, boot id and process start time', async () => {
    const path = join(tempDir(), 'schedule.json');
    const storage = jsonFileStorage({ path });
    await storage.open();
    const lock = JSON.parse(readFileSync(lockPathFor(path), 'utf8')) as Record<string, unknown>;
    expect(lock).toMatchObject({ pid: process.pid, boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() });
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    expect(lock.start).toBe(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    await storage.close();
  });

  const bootId = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  it.each([
    ['its pid now belongs to another process (another start time)', () => ({ boot: bootId(), start: '1' })],
    ['it was written before the machine rebooted (another boot id)', () => ({ boot: '00000000-0000-4000-8000-000000000000', start: '1' })],
  ])('a lock naming a live process that is not its owner is taken over: %s', async (_name, identity) => {
    const path = join(tempDir(), 'schedule.json');
    // process.ppid is alive (the test runner), but the lock was not written by it.
    writeFileSync(lockPathFor(path), JSON.stringify({ pid: process.ppid, token: 'reused', ...identity() }));
    const storage = jsonFileStorage({ path });
    await storage.open();
    expect(JSON.parse(readFileSync(lockPathFor(path), 'utf8'))).toMatchObject({ pid: process.pid });
    await storage.close();
  });

  it('a lock naming a live process with its own start time and boot id still refuses the open', async () => {
    const path = join(tempDir(), 'schedule.json');
    const stat = readFileSync(`/proc/${process.ppid}/stat`, 'utf8');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const content = JSON.stringify({ pid: process.ppid, token: 'owner', boot: bootId(), start });
    writeFileSync(lockPathFor(path), content);
    await expect(jsonFileStorage({ path }).open()).rejects.toMatchObject({ ownerPid: process.ppid });
    expect(readFileSync(lockPathFor(path), 'utf8')).toBe(content);
  });
});
