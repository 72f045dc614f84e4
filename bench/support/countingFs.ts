// A file-system seam for the benchmarks that forwards every operation to the real file system and
// counts the bytes written through it, per kind of file: the journal, the document (its temp files
// and the rename over schedule.json) and anything else (the lock). Nothing is changed on the way.
import { basename } from 'node:path';
import { type FileHandleLike, type FileSystem, nodeFileSystem } from '../../src/adapters/fsSeam.ts';

/** Bytes written through the seam, by kind of file. */
export interface WriteCounts {
  journal: number;
  document: number;
  other: number;
  /** Atomic rewrites of schedule.json (renames onto it). */
  documentRewrites: number;
  /** fsync calls on files and directories. */
  syncs: number;
}

const kindOf = (path: string): 'journal' | 'document' | 'other' => {
  const name = basename(path);
  if (name.endsWith('.journal')) return 'journal';
  if (name === 'schedule.json' || name.startsWith('.schedule.json.tmp')) return 'document';
  return 'other';
};

/** A counting seam over the real file system; read `counts` at any time, `reset()` to start over. */
export function countingFileSystem(inner: FileSystem = nodeFileSystem): { fs: FileSystem; counts: WriteCounts; reset(): void } {
  const counts: WriteCounts = { journal: 0, document: 0, other: 0, documentRewrites: 0, syncs: 0 };
  const wrap = (handle: FileHandleLike, path: string): FileHandleLike => {
    const kind = kindOf(path);
    return {
      async write(buffer, offset, length, position) {
        const result = await handle.write(buffer, offset, length, position);
        counts[kind] += result.bytesWritten;
        return result;
      },
      sync: () => {
        counts.syncs++;
        return handle.sync();
      },
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
    };
  };
  const fs: FileSystem = {
    ...inner,
    readFile: (path) => inner.readFile(path),
    open: async (path, flags) => wrap(await inner.open(path, flags), path),
    rename: async (from, to) => {
      await inner.rename(from, to);
      if (basename(to) === 'schedule.json') counts.documentRewrites++;
    },
    unlink: (path) => inner.unlink(path),
    mkdir: (path) => inner.mkdir(path),
    link: (from, to) => inner.link(from, to),
  };
  const reset = () => {
    counts.journal = 0;
    counts.document = 0;
    counts.other = 0;
    counts.documentRewrites = 0;
    counts.syncs = 0;
  };
  return { fs, counts, reset };
}
