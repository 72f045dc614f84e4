// The owner lock of a JSON domain: `schedule.json.lock` beside the document, holding the owner's
// identity — pid, boot id and start time (see processIdentity.ts) — and a random token. It is
// created atomically (a claim file is written, then hard-linked into place), so it never exists
// half-written, and a second opener finds it and is refused while its owner runs.
//
// A stale lock (its owner has exited, its pid now names another process, it was written before
// the machine rebooted, or it is damaged) is taken over without anyone deleting a file, and the
// take-over is exclusive: to replace lock content S, a taker must first create the marker file
// `schedule.json.lock.takeover-<digest of S>` with an exclusive hard link. Only one process can
// create it; it then checks that the lock still holds S and renames its claim over the lock. A
// marker whose creator died before finishing is passed the same way: the next taker creates the
// marker keyed on that marker's content, and so on along the chain. A live marker means a
// take-over is under way, and the opener waits a little and looks again. Markers are removed by
// the taker that made them; a marker keyed on content that is no longer the lock is inert.
import { createHash, randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { ScheduleError } from '../domain/errors.ts';
import { errorCode, type FileSystem, readIfExists } from './fsSeam.ts';
import { mayBeRunning, ownIdentity, type ProcessIdentity } from './processIdentity.ts';

/** Tokens of the locks (and take-over claims) this process holds or is acquiring. */
const liveTokens = new Set<string>();

/** Attempts before an opener gives up on a lock that keeps changing or a take-over that does not end. */
const MAX_ATTEMPTS = 200;
/** Longest chain of abandoned take-over markers followed. */
const MAX_CHAIN = 16;

/**
 * Another live process (or another open storage in this process) owns the domain. Its code is
 * `storage_locked`: nothing is wrong with the data; the Host must close the other owner first.
 */
export class StorageLockedError extends ScheduleError {
  readonly lockPath: string;
  readonly ownerPid: number;

  constructor(lockPath: string, ownerPid: number, takingOver = false) {
    const who = ownerPid === process.pid ? 'this process (another open storage)' : `process ${ownerPid}`;
    super(
      'storage_locked',
      takingOver
        ? `The schedule domain is being taken over by ${who}: lock file ${lockPath}. Close that scheduler first.`
        : `The schedule domain is in use by ${who}: lock file ${lockPath}. Close the scheduler that holds it first; a lock left by a process that no longer exists is taken over automatically.`,
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

interface LockContent extends ProcessIdentity {
  readonly token: string;
}

/** Reads lock or claim bytes; undefined for anything damaged. */
function parseLock(bytes: Buffer): LockContent | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, token, boot, start } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0 || typeof token !== 'string') return undefined;
    return {
      pid,
      token,
      ...(typeof boot === 'string' ? { boot } : {}),
      ...(typeof start === 'string' ? { start } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Whether the lock or claim `bytes` belongs to a running owner. */
async function isLive(fs: FileSystem, bytes: Buffer, self: ProcessIdentity): Promise<LockContent | undefined> {
  const content = parseLock(bytes);
  if (content === undefined) return undefined;
  const sameBoot = content.boot === undefined || self.boot === undefined || content.boot === self.boot;
  if (content.pid === process.pid && sameBoot && (content.start === undefined || content.start === self.start)) {
    // This very process: live while the storage that wrote it holds it (or is still acquiring it).
    return liveTokens.has(content.token) ? content : undefined;
  }
  if (content.pid === process.pid) return undefined; // an earlier process that had this pid
  return (await mayBeRunning(fs, content, self)) ? content : undefined;
}

const markerPath = (lockPath: string, content: Buffer): string =>
  `${lockPath}.takeover-${createHash('sha256').update(content).digest('hex').slice(0, 32)}`;

/** Creates `to` as a link to `claim`; false when it exists. */
async function linkExclusive(fs: FileSystem, claim: string, to: string): Promise<boolean> {
  try {
    await fs.link(claim, to);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
}

type TakeOver = { readonly kind: 'taken' } | { readonly kind: 'changed' } | { readonly kind: 'busy'; readonly pid: number };

/** Replaces the stale lock content `stale` with `claim`, exclusively (see the file comment). */
async function takeOver(fs: FileSystem, lockPath: string, stale: Buffer, claim: string, self: ProcessIdentity): Promise<TakeOver> {
  const passed: string[] = [];
  let key = stale;
  let mine: string | undefined;
  for (let depth = 0; depth < MAX_CHAIN && mine === undefined; depth++) {
    const marker = markerPath(lockPath, key);
    if (await linkExclusive(fs, claim, marker)) {
      mine = marker;
      break;
    }
    const holder = await readIfExists(fs, marker);
    if (holder === undefined) return { kind: 'changed' }; // removed by a taker that finished: look at the lock again
    const live = await isLive(fs, holder, self);
    if (live !== undefined) return { kind: 'busy', pid: live.pid };
    passed.push(marker);
    key = holder;
  }
  if (mine === undefined) return { kind: 'busy', pid: 0 };
  const now = await readIfExists(fs, lockPath).catch(async (error: unknown) => {
    await fs.unlink(mine).catch(() => undefined);
    throw error;
  });
  if (now === undefined || !now.equals(stale)) {
    await fs.unlink(mine).catch(() => undefined);
    return { kind: 'changed' };
  }
  try {
    await fs.rename(claim, lockPath);
  } catch (error) {
    await fs.unlink(mine).catch(() => undefined);
    throw error;
  }
  // The lock is ours: every marker of this chain is keyed on content that will never be the lock again.
  for (const marker of [mine, ...passed]) await fs.unlink(marker).catch(() => undefined);
  return { kind: 'taken' };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Takes the lock at `lockPath`, taking over a stale one.
 *
 * @throws StorageLockedError when a live owner holds it (or is taking it over); the file system's
 *   own error when the claim file cannot be written.
 */
export async function acquireLock(fs: FileSystem, lockPath: string): Promise<HeldLock> {
  const self = await ownIdentity(fs);
  const token = randomBytes(12).toString('hex');
  const claim = `${lockPath}.${process.pid}.${token}`;
  const data = Buffer.from(`${JSON.stringify({ ...self, token })}\n`);
  const handle = await fs.open(claim, 'wx');
  try {
    await handle.write(data, 0, data.length, 0);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await fs.unlink(claim).catch(() => undefined);
    throw error;
  }
  await handle.close();
  liveTokens.add(token);
  let held = false;
  try {
    let lastOwner = 0;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (await linkExclusive(fs, claim, lockPath)) {
        held = true;
        break;
      }
      const existing = await readIfExists(fs, lockPath);
      if (existing === undefined) continue;
      const owner = await isLive(fs, existing, self);
      if (owner !== undefined) throw new StorageLockedError(lockPath, owner.pid);
      const result = await takeOver(fs, lockPath, existing, claim, self);
      if (result.kind === 'taken') {
        held = true;
        break;
      }
      if (result.kind === 'busy') {
        lastOwner = result.pid;
        await pause(1 + Math.floor(Math.random() * 5));
      }
    }
    if (!held) throw new StorageLockedError(lockPath, lastOwner, true);
    return { release: () => releaseLock(fs, lockPath, token) };
  } finally {
    if (!held) liveTokens.delete(token);
    await fs.unlink(claim).catch(() => undefined);
  }
}

const WHY: Readonly<Record<string, string>> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
};

/**
 * The error of an open that cannot create its lock file (or the data directory): code
 * `persistence_uncertain` — the storage cannot make anything durable there — with a message naming
 * the directory and the system's reason. Nothing was read or changed.
 */
export function unwritableDirectoryError(lockPath: string, error: unknown): ScheduleError {
  const dir = dirname(lockPath);
  const code = errorCode(error);
  const reason =
    code === undefined
      ? error instanceof Error
        ? error.message
        : String(error)
      : `${code}${WHY[code] === undefined ? '' : `: ${WHY[code]}`}`;
  return new ScheduleError(
    'persistence_uncertain',
    `The schedule storage cannot write in its directory ${dir} (${reason}), so it cannot create its lock file ${lockPath}. Nothing was read or changed; make the directory writable and open again.`,
    { cause: error },
  );
}

async function releaseLock(fs: FileSystem, lockPath: string, token: string): Promise<void> {
  try {
    const existing = await readIfExists(fs, lockPath);
    if (existing !== undefined && parseLock(existing)?.token === token) await fs.unlink(lockPath);
  } finally {
    // Only now may another storage of this process judge the lock stale.
    liveTokens.delete(token);
  }
}
