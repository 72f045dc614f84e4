// Temp directories for storage tests, a snapshot of a directory's files (to prove a failed open
// changed nothing), and a file-system seam that injects failures into chosen operations.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FileHandleLike, type FileSystem, nodeFileSystem } from '../../src/adapters/fsSeam.ts';

const dirs: string[] = [];

/** A fresh temp directory, removed by {@link removeTempDirs}. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-schedule-storage-'));
  dirs.push(dir);
  return dir;
}

/** Removes every directory made by {@link tempDir}. */
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Every file in `dir` (recursively) with its bytes, as a comparable record; directories marked. */
export function filesIn(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    out[name] = statSync(path).isDirectory() ? '<dir>' : readFileSync(path).toString('base64');
  }
  return out;
}

/** Which operation a {@link FaultyFileSystem} fails. */
export type FaultPoint = 'write' | 'shortWrite' | 'sync' | 'rename' | 'truncate' | 'open';

/** A file-system seam over the real one whose next operations can be made to fail. */
export class FaultyFileSystem implements FileSystem {
  private readonly faults: Array<{ point: FaultPoint; matches: (path: string) => boolean }> = [];
  /** Operations seen, for assertions: `write <path>`, `sync <path>` … */
  readonly log: string[] = [];
  /** When set, every fsync of a matching path waits for this promise first. */
  holdSync: { matches: (path: string) => boolean; until: Promise<void> } | undefined;

  /** Makes the next `point` operation on a path matching `pattern` fail (once). */
  failNext(point: FaultPoint, pattern: RegExp | string = /.*/): void {
    const matches = typeof pattern === 'string' ? (p: string) => p.endsWith(pattern) : (p: string) => pattern.test(p);
    this.faults.push({ point, matches });
  }

  private take(point: FaultPoint, path: string): boolean {
    const index = this.faults.findIndex((f) => f.point === point && f.matches(path));
    if (index < 0) return false;
    this.faults.splice(index, 1);
    return true;
  }

  private fault(point: FaultPoint, path: string): Error {
    return Object.assign(new Error(`injected ${point} failure on ${path}`), { code: 'EIO' });
  }

  readFile(path: string): Promise<Buffer> {
    return nodeFileSystem.readFile(path);
  }

  async open(path: string, flags: string | number): Promise<FileHandleLike> {
    if (this.take('open', path)) throw this.fault('open', path);
    const inner = await nodeFileSystem.open(path, flags);
    return {
      write: async (buffer, offset, length, position) => {
        this.log.push(`write ${path}`);
        if (this.take('write', path)) throw this.fault('write', path);
        if (length > 1 && this.take('shortWrite', path)) {
          await inner.write(buffer, offset, Math.floor(length / 2), position);
          throw this.fault('shortWrite', path);
        }
        return inner.write(buffer, offset, length, position);
      },
      sync: async () => {
        this.log.push(`sync ${path}`);
        const hold = this.holdSync;
        if (hold?.matches(path)) await hold.until;
        if (this.take('sync', path)) throw this.fault('sync', path);
        return inner.sync();
      },
      truncate: async (length) => {
        this.log.push(`truncate ${path}`);
        if (this.take('truncate', path)) throw this.fault('truncate', path);
        return inner.truncate(length);
      },
      close: () => inner.close(),
    };
  }

  async rename(from: string, to: string): Promise<void> {
    this.log.push(`rename ${to}`);
    if (this.take('rename', to)) throw this.fault('rename', to);
    return nodeFileSystem.rename(from, to);
  }

  unlink(path: string): Promise<void> {
    return nodeFileSystem.unlink(path);
  }

  mkdir(path: string): Promise<void> {
    return nodeFileSystem.mkdir(path);
  }

  link(from: string, to: string): Promise<void> {
    return nodeFileSystem.link(from, to);
  }
}
