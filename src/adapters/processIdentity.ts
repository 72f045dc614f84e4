// Who a process is, beyond its pid, for the owner lock: on Linux the machine's boot id
// (/proc/sys/kernel/random/boot_id) and the process's start time (field 22 of /proc/<pid>/stat,
// clock ticks since boot). A pid is reused — after a restart of a container, or simply in time —
// but a pid with the same start time in the same boot is the same process. Both are read through
// the storage's file-system seam (so a test's file system can stand for another boot); where they
// cannot be read (another platform, no /proc) they are absent and the pid alone decides.
import { errorCode, type FileSystem } from './fsSeam.ts';

/** The identity of a process as the lock file records it. */
export interface ProcessIdentity {
  readonly pid: number;
  /** The boot id of the machine it ran on (Linux). */
  readonly boot?: string;
  /** Its start time in clock ticks since boot (Linux). */
  readonly start?: string;
}

async function readText(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(path)).toString('utf8');
  } catch {
    return undefined;
  }
}

/** The machine's boot id, when the platform has one. */
export async function bootId(fs: FileSystem): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const text = (await readText(fs, '/proc/sys/kernel/random/boot_id'))?.trim();
  return text === undefined || text.length === 0 ? undefined : text;
}

/** A process's start time (clock ticks since boot), when the platform shows it. */
export async function startTime(fs: FileSystem, pid: number): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const text = await readText(fs, `/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const start = fields[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

/** This process's identity. */
export async function ownIdentity(fs: FileSystem): Promise<ProcessIdentity> {
  const [boot, start] = await Promise.all([bootId(fs), startTime(fs, process.pid)]);
  return { pid: process.pid, ...(boot === undefined ? {} : { boot }), ...(start === undefined ? {} : { start }) };
}

/** True when a process with this pid exists now (a permission error means it exists). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/**
 * Whether the process `recorded` names may still be running, judged against this process's
 * identity `self`: not when it ran in another boot, when its pid is gone, or when that pid now
 * belongs to a process that started at another time. What cannot be checked counts as running.
 */
export async function mayBeRunning(fs: FileSystem, recorded: ProcessIdentity, self: ProcessIdentity): Promise<boolean> {
  if (recorded.boot !== undefined && self.boot !== undefined && recorded.boot !== self.boot) return false;
  if (!pidExists(recorded.pid)) return false;
  if (recorded.start === undefined) return true;
  const now = await startTime(fs, recorded.pid);
  return now === undefined || now === recorded.start;
}
