// Atomic replacement of a file: write a temp file in the same directory, fsync it, rename it
// over the target, fsync the directory. A crash at any point leaves either the old or the new
// file complete; a failure removes the temp file and leaves the target untouched. A caller may
// see the bytes as they are written and run a step of its own between the fsync and the rename.
import { basename, dirname, join } from 'node:path';
import { type FileSystem, syncDirectory, writeFully } from './fsSeam.ts';

const CHUNK_BYTES = 1 << 20;
let tempCounter = 0;

/** The temp-file name used while replacing `path` (same directory, so the rename is atomic). */
export const tempPathFor = (path: string): string => join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${++tempCounter}`);

/** Optional steps of {@link writeFileAtomic}. */
export interface AtomicWriteHooks {
  /** Sees every block of bytes written to the temp file, in order. */
  readonly onData?: (data: Uint8Array) => void;
  /** Runs once the temp file is durable, before it is renamed over the target; a failure aborts the write. */
  readonly beforeRename?: () => Promise<void>;
}

/**
 * Atomically replaces `path` with the concatenation of `chunks` (UTF-8), writing in blocks of
 * about 1 MiB. Resolves with the number of bytes written once the new file and its directory
 * entry are durable.
 */
export async function writeFileAtomic(
  fs: FileSystem,
  path: string,
  chunks: Iterable<string>,
  hooks: AtomicWriteHooks = {},
): Promise<number> {
  const temp = tempPathFor(path);
  const handle = await fs.open(temp, 'wx');
  let position = 0;
  let open = true;
  try {
    let pending: string[] = [];
    let pendingLength = 0;
    const flush = async () => {
      const data = Buffer.from(pending.join(''), 'utf8');
      pending = [];
      pendingLength = 0;
      hooks.onData?.(data);
      await writeFully(handle, data, position);
      position += data.length;
    };
    for (const chunk of chunks) {
      pending.push(chunk);
      pendingLength += chunk.length;
      if (pendingLength >= CHUNK_BYTES) await flush();
    }
    if (pendingLength > 0) await flush();
    await handle.sync();
    open = false;
    await handle.close();
  } catch (error) {
    if (open) await handle.close().catch(() => undefined);
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  try {
    await hooks.beforeRename?.();
    await fs.rename(temp, path);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncDirectory(fs, dirname(path));
  return position;
}
