// The file-system seam of the JSON file storage: the few operations it performs, as an
// interface, so tests can inject failures (a failing fsync, rename or short write) without
// touching the real disk's behaviour. `nodeFileSystem` is the real implementation over
// `node:fs/promises`.
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** An open file: positional writes, fsync, truncate, close. */
export interface FileHandleLike {
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  truncate(length?: number): Promise<void>;
  close(): Promise<void>;
}

/** Everything the JSON file storage asks of the file system. */
export interface FileSystem {
  readFile(path: string): Promise<Buffer>;
  /** `flags` as for `fs.open` (a string such as "wx" or numeric `O_*` flags). */
  open(path: string, flags: string | number): Promise<FileHandleLike>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(path: string): Promise<void>;
  /** Creates `to` as a hard link to `from`; fails with EEXIST when `to` exists. */
  link(from: string, to: string): Promise<void>;
}

/** The real file system (`node:fs/promises`). */
export const nodeFileSystem: FileSystem = {
  readFile: (path) => fsp.readFile(path),
  open: (path, flags) => fsp.open(path, flags),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  link: (from, to) => fsp.link(from, to),
  mkdir: async (path) => {
    try {
      await fsp.mkdir(path, { recursive: true });
    } catch (error) {
      // A recursive mkdir that fails higher up (a read-only or unwritable parent) reports ENOENT;
      // creating the directories one by one gives the real reason.
      if (errorCode(error) !== 'ENOENT') throw error;
      await mkdirStepwise(path);
    }
  },
};

/** Creates `path` and its missing parents one at a time, so a failure carries its own code. */
async function mkdirStepwise(path: string): Promise<void> {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const exists = await fsp.stat(dir).then(
      () => true,
      () => false,
    );
    if (exists || dirname(dir) === dir) break;
    missing.unshift(dir);
  }
  for (const dir of missing) {
    await fsp.mkdir(dir).catch((error: unknown) => {
      if (errorCode(error) !== 'EEXIST') throw error;
    });
  }
}

/** Flags that open a file for reading and writing, creating it when absent (never truncating). */
export const OPEN_OR_CREATE = constants.O_RDWR | constants.O_CREAT;

/** The error code of a Node system error (`ENOENT`, `EEXIST` …), if any. */
export const errorCode = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

/** Reads a whole file, or `undefined` when it does not exist. */
export async function readIfExists(fs: FileSystem, path: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes all of `data` at `position`, looping over short writes. */
export async function writeFully(handle: FileHandleLike, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    if (bytesWritten <= 0) throw new Error(`short write: ${done} of ${data.length} bytes written`);
    done += bytesWritten;
  }
}

/**
 * Fsyncs a directory so a rename, creation or removal inside it is durable. Platforms that
 * cannot open a directory for syncing (Windows) skip this step.
 */
export async function syncDirectory(fs: FileSystem, dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
