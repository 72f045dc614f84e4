// A file-system seam over the real one that fails chosen operations with a chosen error code —
// `ENOSPC` or `EIO` on a write (after writing part of the data, as a full disk does), on an fsync,
// on a rename — on the paths a pattern matches, a given number of times or until cleared. It
// counts the failures it injected, so a test can prove its fault was actually hit.
import { type FileHandleLike, type FileSystem, nodeFileSystem } from '../../src/adapters/fsSeam.ts';

export type FsOperation = 'open' | 'write' | 'sync' | 'truncate' | 'rename' | 'unlink';
export type FsErrorCode = 'ENOSPC' | 'EIO' | 'EROFS' | 'EACCES' | 'EMFILE';

interface Fault {
  readonly operation: FsOperation;
  readonly code: FsErrorCode;
  readonly matches: (path: string) => boolean;
  remaining: number;
}

/** Paths of the JSON domain's files, for fault patterns. */
export const PATHS = {
  journal: /schedule\.json\.journal$/,
  /** The temp file a compaction writes before renaming it over schedule.json. */
  compactionTemp: /\.schedule\.json\.tmp-/,
  document: /schedule\.json$/,
} as const;

/** A pattern matching exactly `dir` (the domain's directory, fsynced after a rename or a journal's creation). */
export const exactly = (dir: string): RegExp => new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

export class FaultFs implements FileSystem {
  private readonly faults: Fault[] = [];
  /** Failures injected so far, by `operation code`. */
  readonly injected = new Map<string, number>();

  /** Fails the next `times` (default: every, until {@link clear}) `operation`s on matching paths with `code`. */
  fail(operation: FsOperation, pattern: RegExp, code: FsErrorCode, times = Number.POSITIVE_INFINITY): void {
    this.faults.push({ operation, code, matches: (path) => pattern.test(path), remaining: times });
  }

  /** Ends every injected fault. */
  clear(): void {
    this.faults.length = 0;
  }

  /** How many failures were injected in total. */
  get injectedCount(): number {
    let total = 0;
    for (const n of this.injected.values()) total += n;
    return total;
  }

  private take(operation: FsOperation, path: string): Error | undefined {
    const fault = this.faults.find((f) => f.operation === operation && f.remaining > 0 && f.matches(path));
    if (fault === undefined) return undefined;
    fault.remaining--;
    const key = `${operation} ${fault.code}`;
    this.injected.set(key, (this.injected.get(key) ?? 0) + 1);
    return Object.assign(new Error(`${fault.code}: injected ${operation} failure on ${path}`), {
      code: fault.code,
      syscall: operation,
      path,
    });
  }

  readFile(path: string): Promise<Buffer> {
    return nodeFileSystem.readFile(path);
  }

  async open(path: string, flags: string | number): Promise<FileHandleLike> {
    const opening = this.take('open', path);
    if (opening !== undefined) throw opening;
    const inner = await nodeFileSystem.open(path, flags);
    return {
      write: async (buffer, offset, length, position) => {
        const error = this.take('write', path);
        if (error === undefined) return inner.write(buffer, offset, length, position);
        // A full or failing disk takes part of the data before it refuses the rest.
        if (length > 1) await inner.write(buffer, offset, Math.floor(length / 2), position);
        throw error;
      },
      sync: async () => {
        const error = this.take('sync', path);
        if (error !== undefined) throw error;
        return inner.sync();
      },
      truncate: async (length) => {
        const error = this.take('truncate', path);
        if (error !== undefined) throw error;
        return inner.truncate(length);
      },
      close: () => inner.close(),
    };
  }

  async rename(from: string, to: string): Promise<void> {
    const error = this.take('rename', to);
    if (error !== undefined) throw error;
    return nodeFileSystem.rename(from, to);
  }

  async unlink(path: string): Promise<void> {
    const error = this.take('unlink', path);
    if (error !== undefined) throw error;
    return nodeFileSystem.unlink(path);
  }

  mkdir(path: string): Promise<void> {
    return nodeFileSystem.mkdir(path);
  }

  link(from: string, to: string): Promise<void> {
    return nodeFileSystem.link(from, to);
  }
}
