// An in-memory file system behind the JSON storage's fs seam that knows what a power loss keeps:
// each file has its current bytes and its durable bytes (as of its last fsync), each directory its
// current entries and its durable entries (as of its last fsync). `crash()` builds the file system
// a machine would find after losing power at this instant — only fsynced bytes under fsynced
// directory entries, or (with a random source) any mix of the durable and the current version of
// each entry and each file, a file's unsynced appended bytes cut at any length. Every operation
// first waits for `delay()` (a macrotask by default, as real I/O does), so promise callbacks run
// between operations as they would on a disk, and a seeded delay can interleave racing callers.
// `onMutation` is told before every operation that changes anything, so a test can take a crash
// image at each point. Reads of /proc go to the real file system, except the boot id, which each
// image has its own of (a crash is a new boot).
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { FileHandleLike, FileSystem } from '../../src/adapters/fsSeam.ts';

interface FileNode {
  readonly kind: 'file';
  data: Buffer;
  durable: Buffer;
}

interface DirNode {
  readonly kind: 'dir';
  readonly entries: Map<string, Node>;
  durable: Map<string, Node>;
}

type Node = FileNode | DirNode;

const BOOT_ID = '/proc/sys/kernel/random/boot_id';

const fsError = (code: string, syscall: string, path: string): Error =>
  Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path });

const emptyDir = (): DirNode => ({ kind: 'dir', entries: new Map(), durable: new Map() });

/** Options of {@link MemoryFs}. */
export interface MemoryFsOptions {
  /** Awaited at the start of every operation (default: one `setImmediate`). */
  readonly delay?: () => Promise<void>;
  /** The boot id this file system's machine reports (default: a fresh one). */
  readonly bootId?: string;
}

/** The kind of change an operation makes, as {@link MemoryFs.onMutation} is told. */
export type Mutation = 'create' | 'write' | 'truncate' | 'sync' | 'rename' | 'unlink' | 'link' | 'mkdir';

const immediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A file system held in memory that can show what a power loss would leave of it. */
export class MemoryFs implements FileSystem {
  private readonly root: DirNode;
  readonly bootId: string;
  delay: () => Promise<void>;
  /** Told before each operation that changes anything (after its delay). */
  onMutation: ((mutation: Mutation, path: string) => void) | undefined;

  constructor(options: MemoryFsOptions = {}, root: DirNode = emptyDir()) {
    this.root = root;
    this.delay = options.delay ?? immediate;
    this.bootId = options.bootId ?? randomUUID();
  }

  // --- setting up and looking -----------------------------------------------------------------

  /** Creates `path` and its parents as durable directories (a folder that existed before the test). */
  mkdirDurable(path: string): void {
    let dir = this.root;
    for (const part of parts(path)) {
      let next = dir.entries.get(part);
      if (next === undefined) {
        next = emptyDir();
        dir.entries.set(part, next);
      }
      if (next.kind !== 'dir') throw fsError('ENOTDIR', 'mkdir', path);
      dir.durable.set(part, next);
      dir = next;
    }
  }

  /** Writes a file whose bytes and entry are already durable. */
  writeDurable(path: string, data: string | Buffer): void {
    const dir = this.dirOf(path, 'open');
    const bytes = Buffer.from(data);
    const node: FileNode = { kind: 'file', data: bytes, durable: bytes };
    dir.entries.set(basename(path), node);
    dir.durable.set(basename(path), node);
  }

  /** The current bytes of a file, or undefined. */
  peek(path: string): Buffer | undefined {
    const node = this.lookup(path);
    return node?.kind === 'file' ? node.data : undefined;
  }

  /** The names in a directory now. */
  list(path: string): string[] {
    const node = this.lookup(path);
    return node?.kind === 'dir' ? [...node.entries.keys()].sort() : [];
  }

  /**
   * The file system after a power loss now: only fsynced bytes under fsynced entries; with
   * `rand`, each entry and each file independently either as durable or as current, and the
   * unsynced tail of an appended file cut at a random length. The image has a new boot id.
   */
  crash(rand?: () => number): MemoryFs {
    const copies = new Map<Node, Node>();
    const copyFile = (node: FileNode): FileNode => {
      let data = node.durable;
      if (rand !== undefined && node.data !== node.durable) {
        const roll = rand();
        const extends_ = node.data.length > node.durable.length && node.data.subarray(0, node.durable.length).equals(node.durable);
        if (roll < 0.4) data = node.data;
        else if (roll < 0.7 && extends_) {
          const keep = node.durable.length + Math.floor(rand() * (node.data.length - node.durable.length + 1));
          data = node.data.subarray(0, keep);
        }
      }
      return { kind: 'file', data, durable: data };
    };
    const copy = (node: Node): Node => {
      const known = copies.get(node);
      if (known !== undefined) return known;
      if (node.kind === 'file') {
        const made = copyFile(node);
        copies.set(node, made);
        return made;
      }
      const made = emptyDir();
      copies.set(node, made);
      const names = new Set([...node.durable.keys(), ...(rand === undefined ? [] : node.entries.keys())]);
      for (const name of [...names].sort()) {
        const chosen = rand === undefined || rand() < 0.5 ? node.durable.get(name) : node.entries.get(name);
        if (chosen === undefined) continue;
        const child = copy(chosen);
        made.entries.set(name, child);
        made.durable.set(name, child);
      }
      return made;
    };
    return new MemoryFs({ delay: this.delay }, copy(this.root) as DirNode);
  }

  // --- the seam -------------------------------------------------------------------------------

  async readFile(path: string): Promise<Buffer> {
    if (path === BOOT_ID) return Buffer.from(`${this.bootId}\n`);
    if (path.startsWith('/proc/')) return fsp.readFile(path);
    await this.delay();
    const node = this.lookup(path);
    if (node === undefined) throw fsError('ENOENT', 'open', path);
    if (node.kind === 'dir') throw fsError('EISDIR', 'read', path);
    return Buffer.from(node.data);
  }

  async open(path: string, flags: string | number): Promise<FileHandleLike> {
    await this.delay();
    const mode = openMode(flags);
    const dir = this.dirOf(path, 'open');
    const name = basename(path);
    let node = path === '/' ? this.root : dir.entries.get(name);
    if (node !== undefined && mode.exclusive) throw fsError('EEXIST', 'open', path);
    if (node === undefined) {
      if (!mode.create) throw fsError('ENOENT', 'open', path);
      this.mutate('create', path);
      node = { kind: 'file', data: Buffer.alloc(0), durable: Buffer.alloc(0) };
      dir.entries.set(name, node);
    } else if (node.kind === 'file' && mode.truncate && node.data.length > 0) {
      this.mutate('truncate', path);
      node.data = Buffer.alloc(0);
    }
    return node.kind === 'dir' ? this.dirHandle(node, path) : this.fileHandle(node, path, mode.writable);
  }

  async rename(from: string, to: string): Promise<void> {
    await this.delay();
    const source = this.dirOf(from, 'rename');
    const target = this.dirOf(to, 'rename');
    const node = source.entries.get(basename(from));
    if (node === undefined) throw fsError('ENOENT', 'rename', from);
    if (target.entries.get(basename(to))?.kind === 'dir') throw fsError('EISDIR', 'rename', to);
    this.mutate('rename', to);
    source.entries.delete(basename(from));
    target.entries.set(basename(to), node);
  }

  async unlink(path: string): Promise<void> {
    await this.delay();
    const dir = this.dirOf(path, 'unlink');
    const node = dir.entries.get(basename(path));
    if (node === undefined) throw fsError('ENOENT', 'unlink', path);
    if (node.kind === 'dir') throw fsError('EISDIR', 'unlink', path);
    this.mutate('unlink', path);
    dir.entries.delete(basename(path));
  }

  async mkdir(path: string): Promise<void> {
    await this.delay();
    let dir = this.root;
    for (const part of parts(path)) {
      let next = dir.entries.get(part);
      if (next === undefined) {
        this.mutate('mkdir', path);
        next = emptyDir();
        dir.entries.set(part, next);
      }
      if (next.kind !== 'dir') throw fsError('ENOTDIR', 'mkdir', path);
      dir = next;
    }
  }

  async link(from: string, to: string): Promise<void> {
    await this.delay();
    const node = this.lookup(from);
    if (node === undefined) throw fsError('ENOENT', 'link', from);
    if (node.kind === 'dir') throw fsError('EPERM', 'link', from);
    const dir = this.dirOf(to, 'link');
    if (dir.entries.has(basename(to))) throw fsError('EEXIST', 'link', to);
    this.mutate('link', to);
    dir.entries.set(basename(to), node);
  }

  // --- internals ------------------------------------------------------------------------------

  private mutate(mutation: Mutation, path: string): void {
    this.onMutation?.(mutation, path);
  }

  private lookup(path: string): Node | undefined {
    let node: Node = this.root;
    for (const part of parts(path)) {
      if (node.kind !== 'dir') return undefined;
      const next: Node | undefined = node.entries.get(part);
      if (next === undefined) return undefined;
      node = next;
    }
    return node;
  }

  private dirOf(path: string, syscall: string): DirNode {
    const parent = this.lookup(dirname(path));
    if (parent === undefined) throw fsError('ENOENT', syscall, path);
    if (parent.kind !== 'dir') throw fsError('ENOTDIR', syscall, path);
    return parent;
  }

  private fileHandle(node: FileNode, path: string, writable: boolean): FileHandleLike {
    let open = true;
    const check = (syscall: string) => {
      if (!open) throw fsError('EBADF', syscall, path);
      if (!writable) throw fsError('EBADF', syscall, path);
    };
    return {
      write: async (buffer, offset, length, position) => {
        await this.delay();
        check('write');
        this.mutate('write', path);
        const end = position + length;
        const next = Buffer.alloc(Math.max(node.data.length, end));
        node.data.copy(next, 0, 0, node.data.length);
        Buffer.from(buffer.buffer, buffer.byteOffset + offset, length).copy(next, position);
        node.data = next;
        return { bytesWritten: length };
      },
      sync: async () => {
        await this.delay();
        if (!open) throw fsError('EBADF', 'fsync', path);
        this.mutate('sync', path);
        node.durable = node.data;
      },
      truncate: async (length = 0) => {
        await this.delay();
        check('ftruncate');
        this.mutate('truncate', path);
        const next = Buffer.alloc(length);
        node.data.copy(next, 0, 0, Math.min(length, node.data.length));
        node.data = next;
      },
      close: async () => {
        open = false;
      },
    };
  }

  private dirHandle(node: DirNode, path: string): FileHandleLike {
    const refuse = async (): Promise<never> => {
      throw fsError('EISDIR', 'write', path);
    };
    return {
      write: refuse,
      truncate: refuse,
      sync: async () => {
        await this.delay();
        this.mutate('sync', path);
        node.durable = new Map(node.entries);
      },
      close: async () => undefined,
    };
  }
}

const parts = (path: string): string[] => path.split('/').filter((part) => part.length > 0);

function openMode(flags: string | number): { create: boolean; exclusive: boolean; truncate: boolean; writable: boolean } {
  if (typeof flags === 'number') {
    const access = flags & (constants.O_RDONLY | constants.O_WRONLY | constants.O_RDWR);
    return {
      create: (flags & constants.O_CREAT) !== 0,
      exclusive: (flags & constants.O_EXCL) !== 0,
      truncate: (flags & constants.O_TRUNC) !== 0,
      writable: access !== constants.O_RDONLY,
    };
  }
  const base = flags.replace('s', '');
  return {
    create: base.startsWith('w') || base.startsWith('a'),
    exclusive: base.includes('x'),
    truncate: base.startsWith('w'),
    writable: base !== 'r',
  };
}
