// The owner lock of a JSON domain: `schedule.json.lock` beside the document, holding the owner's
// pid and a random token. It is created atomically (written to a temp file, then hard-linked into
// place), so it never exists half-written. A lock whose pid is alive refuses the open with a
// StorageLockedError; a lock whose process is gone is taken over. A lock carrying this process's
// own pid that this process does not hold is left over from an earlier process that had the same
// pid (a restarted container) and is taken over too.
import { randomBytes } from 'node:crypto';
import { ScheduleError } from '../domain/errors.ts';
import { errorCode, type FileSystem, readIfExists } from './fsSeam.ts';

const heldHere = new Set<string>();

/**
 * Another live process (or another open storage in this process) owns the domain. Its code is
 * `internal_error`: nothing is wrong with the data; the Host must close the other owner first.
 */
export class StorageLockedError extends ScheduleError {
  readonly lockPath: string;
  readonly ownerPid: number;

  constructor(lockPath: string, ownerPid: number) {
    const who = ownerPid === process.pid ? 'this process (another open storage)' : `process ${ownerPid}`;
    super(
      'internal_error',
      `The schedule domain is in use by ${who}: lock file ${lockPath}. Close the scheduler that holds it first; a lock left by a process that no longer exists is taken over automatically.`,
    );
    this.name = 'StorageLockedError';
    this.lockPath = lockPath;
    this.ownerPid = ownerPid;
  }
}

/** A lock this process holds. */
export interface HeldLock {
  /** Removes the lock file if it is still ours. */
  release(): Promise<void>;
}

interface LockContent {
  readonly pid: number;
  readonly token: string;
}

function parseLock(bytes: Buffer): LockContent | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof value !== 'object' || value === null || !('pid' in value) || !('token' in value)) return undefined;
    const { pid, token } = value;
    return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 && typeof token === 'string' ? { pid, token } : undefined;
  } catch {
    return undefined;
  }
}

/** True when a process with this pid exists (a permission error means it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

function isLive(lockPath: string, content: LockContent | undefined): content is LockContent {
  if (content === undefined) return false;
  if (content.pid === process.pid) return heldHere.has(lockPath);
  return processAlive(content.pid);
}

/**
 * Takes the lock at `lockPath`, taking over a stale one.
 *
 * @throws StorageLockedError when a live owner holds it.
 */
export async function acquireLock(fs: FileSystem, lockPath: string): Promise<HeldLock> {
  const token = randomBytes(12).toString('hex');
  const temp = `${lockPath}.${process.pid}.${token}`;
  const handle = await fs.open(temp, 'wx');
  try {
    const data = Buffer.from(`${JSON.stringify({ pid: process.pid, token })}\n`);
    await handle.write(data, 0, data.length, 0);
  } finally {
    await handle.close();
  }
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.link(temp, lockPath);
        heldHere.add(lockPath);
        return { release: () => releaseLock(fs, lockPath, token) };
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
      const existing = await readIfExists(fs, lockPath);
      if (existing === undefined) continue;
      const content = parseLock(existing);
      if (isLive(lockPath, content) || attempt >= 3) throw new StorageLockedError(lockPath, content?.pid ?? 0);
      const again = await readIfExists(fs, lockPath);
      if (again?.equals(existing)) await fs.unlink(lockPath).catch(() => undefined);
    }
  } finally {
    await fs.unlink(temp).catch(() => undefined);
  }
}

async function releaseLock(fs: FileSystem, lockPath: string, token: string): Promise<void> {
  heldHere.delete(lockPath);
  const existing = await readIfExists(fs, lockPath);
  if (existing !== undefined && parseLock(existing)?.token === token) await fs.unlink(lockPath);
}
