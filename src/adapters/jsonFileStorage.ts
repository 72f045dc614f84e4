// The JSON file storage (docs/storage.md): `schedule.json` is the document of record; an append-only
// journal beside it (`schedule.json.journal`) takes each committed batch as one fsynced line, so
// a commit costs the size of the change, not of the domain — a delivery commit is written as a
// delta of the row it applies to (new receipts, target, status, how many receipts were pruned). Commits that arrive while a journal
// write is in flight are grouped into the next write (group commit). When the journal grows past
// a threshold relative to the document, the document is rewritten atomically with everything
// (temp file, fsync, rename, fsync of the directory) and the journal is emptied; `close()` does
// the same and removes the journal, so after a clean close the whole domain is in schedule.json.
// The first commit to a domain without a document writes schedule.json before it creates the
// journal, so a journal never exists without its document. A lock file (`schedule.json.lock`)
// keeps a second process out. Opening never writes the document or the journal, and a rejected
// open leaves them byte-for-byte unchanged; a directory where the lock cannot be created is
// refused with `persistence_uncertain` naming it.
import { dirname, resolve } from 'node:path';
import { encodeBatch, encodeDocumentChunks } from '../domain/codec/index.ts';
import { isScheduleError, ScheduleError } from '../domain/errors.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { CommitBatch, ScheduleStorage, StoredDomain } from '../ports.ts';
import { writeFileAtomic } from './atomicWrite.ts';
import { type DomainState, type PreparedBatch, prepareBatch } from './domainState.ts';
import { acquireLock, type HeldLock, unwritableDirectoryError } from './fileLock.ts';
import { errorCode, type FileSystem, nodeFileSystem } from './fsSeam.ts';
import { GroupCommit } from './groupCommit.ts';
import { documentHasher, JournalWriter, journalBatch } from './journal.ts';
import { asCorrupt, journalPathFor, loadDomainFiles, lockPathFor } from './loadDomain.ts';

/** When the journal is folded into the document. */
export interface CompactionOptions {
  /** The journal may hold at least this many bytes before compaction (default 1 MiB). */
  readonly minBytes?: number;
  /** …and at least this fraction of the document's size (default 0.5). */
  readonly ratio?: number;
}

/** Options of {@link jsonFileStorage}. */
export interface JsonFileStorageOptions {
  /** Path of the document, e.g. `./data/schedule.json`; its directory is created when missing. */
  readonly path: string;
  readonly compaction?: CompactionOptions;
  /** The file-system seam (tests inject failures through it). */
  readonly fs?: FileSystem;
  /**
   * Told about a failed background compaction. Nothing is lost when one fails — every change
   * stays durable in the journal — and compaction is tried again later and at close.
   */
  readonly onCompactionError?: (error: unknown) => void;
}

/** Errors of a directory the storage may not write in (read-only, no permission, full). */
const UNWRITABLE = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT']);

const DEFAULT_MIN_BYTES = 1 << 20;
const DEFAULT_RATIO = 0.5;

type Phase = 'closed' | 'opening' | 'open' | 'closing';

interface OpenDomain {
  readonly state: DomainState;
  readonly journal: JournalWriter;
  readonly lock: HeldLock;
  documentBytes: number;
  /** Journal length below which no compaction is attempted (raised after a failed attempt). */
  nextCompactionAt: number;
}

const persistenceError = (error: unknown): ScheduleError => {
  const reason = error instanceof Error ? error.message : String(error);
  return new ScheduleError(
    'persistence_uncertain',
    `The schedule change could not be made durable (${reason}); it may or may not have been stored.`,
    { cause: error },
  );
};

/**
 * The journal lines of a group of prepared batches. When the journal takes deltas, a put that only
 * records a delivery on top of the row the storage holds (or an earlier batch of the group put) is
 * written as a delivery delta; everything else as whole rows.
 */
function journalText(domain: OpenDomain, items: readonly PreparedBatch[]): string {
  let text = '';
  if (!domain.journal.takesDeltas) {
    for (const item of items) text += `${encodeBatch(item)}\n`;
    return text;
  }
  const earlier = new Map<string, TaskRow | undefined>();
  const baseOf = (id: string) => (earlier.has(id) ? earlier.get(id) : domain.state.get(id));
  for (const item of items) {
    text += `${encodeBatch(journalBatch(item, baseOf))}\n`;
    for (const id of item.deletes) earlier.set(id, undefined);
    for (const row of item.puts) earlier.set(row.record.id, row);
  }
  return text;
}

/** The JSON file storage; see {@link jsonFileStorage}. */
export class JsonFileStorage implements ScheduleStorage {
  /** Absolute path of the document. */
  readonly path: string;
  private readonly fs: FileSystem;
  private readonly minBytes: number;
  private readonly ratio: number;
  private readonly onCompactionError: (error: unknown) => void;
  private phase: Phase = 'closed';
  private domain: OpenDomain | undefined;
  private closing: Promise<void> | undefined;
  private opening: Promise<StoredDomain> | undefined;
  private readonly committer = new GroupCommit<PreparedBatch>(
    (items) => this.writeGroup(items),
    persistenceError,
    () => this.maybeCompact(),
  );

  constructor(options: JsonFileStorageOptions) {
    this.path = resolve(options.path);
    this.fs = options.fs ?? nodeFileSystem;
    this.minBytes = options.compaction?.minBytes ?? DEFAULT_MIN_BYTES;
    this.ratio = options.compaction?.ratio ?? DEFAULT_RATIO;
    this.onCompactionError = options.onCompactionError ?? (() => undefined);
  }

  /**
   * Takes the lock and reads the domain (document plus journal).
   *
   * @throws ScheduleError `corrupt_schedule_log` for a bad domain (files left unchanged, lock released);
   *   StorageLockedError when another live owner holds the lock.
   */
  open(): Promise<StoredDomain> {
    if (this.phase !== 'closed')
      return Promise.reject(new ScheduleError('internal_error', `The schedule storage at ${this.path} is already open.`));
    this.phase = 'opening';
    const opening = this.load().finally(() => {
      if (this.phase === 'opening') this.phase = 'closed';
      this.opening = undefined;
    });
    this.opening = opening;
    return opening;
  }

  private async load(): Promise<StoredDomain> {
    const lockPath = lockPathFor(this.path);
    try {
      await this.fs.mkdir(dirname(this.path));
    } catch (error) {
      throw UNWRITABLE.has(errorCode(error) ?? '') ? unwritableDirectoryError(lockPath, error) : asCorrupt(error, this.path);
    }
    const lock = await acquireLock(this.fs, lockPath).catch((error: unknown) => {
      if (isScheduleError(error)) throw error;
      throw unwritableDirectoryError(lockPath, error);
    });
    try {
      const loaded = await loadDomainFiles(this.path, this.fs);
      const journal = new JournalWriter(this.fs, journalPathFor(this.path), loaded.journal);
      const domain: OpenDomain = { state: loaded.state, journal, lock, documentBytes: loaded.documentBytes, nextCompactionAt: 0 };
      this.domain = domain;
      this.phase = 'open';
      return domain.state.snapshot();
    } catch (error) {
      await lock.release().catch(() => undefined);
      throw asCorrupt(error, this.path);
    }
  }

  /**
   * Stores a batch: resolves once the journal line holding it is fsynced.
   *
   * @throws ScheduleError `persistence_uncertain` when the write failed (the view is unchanged);
   *   `internal_error` for an invalid batch or a storage that is not open.
   */
  async commit(batch: CommitBatch): Promise<void> {
    if (this.phase !== 'open') throw new ScheduleError('internal_error', `The schedule storage at ${this.path} is not open.`);
    await this.committer.submit(prepareBatch(batch, this.domain?.state));
  }

  /** Resolves once no write or background compaction is in progress (for tests and tools). */
  idle(): Promise<void> {
    return this.committer.idle();
  }

  /**
   * Waits for accepted commits, folds the journal into schedule.json, removes the journal and
   * releases the lock. When compaction fails the journal is kept (nothing is lost; the next open
   * replays it) and close rejects with `persistence_uncertain`.
   */
  close(): Promise<void> {
    if (this.phase === 'closed') return Promise.resolve();
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    await this.opening?.catch(() => undefined);
    if (this.phase === 'closed') {
      this.closing = undefined;
      return;
    }
    this.phase = 'closing';
    await this.committer.idle();
    const domain = this.domain;
    let failure: unknown;
    if (domain !== undefined) {
      try {
        if (domain.journal.hasContent) await this.compact(domain);
        await domain.journal.remove();
      } catch (error) {
        failure = error;
      }
      await domain.journal.close().catch(() => undefined);
      await domain.lock.release().catch(() => undefined);
    }
    this.domain = undefined;
    this.phase = 'closed';
    this.closing = undefined;
    if (failure !== undefined) {
      throw new ScheduleError(
        'persistence_uncertain',
        `Closing the schedule storage could not rewrite ${this.path}; its journal keeps every change.`,
        {
          cause: failure,
        },
      );
    }
  }

  private async writeGroup(items: readonly PreparedBatch[]): Promise<void> {
    const domain = this.domain;
    if (domain === undefined) throw new Error('storage closed while writing');
    // A journal never exists without its document (an open refuses that): write the document first.
    if (domain.documentBytes === 0) await this.compact(domain);
    await domain.journal.append(journalText(domain, items));
    for (const item of items) domain.state.apply(item);
  }

  private threshold(domain: OpenDomain): number {
    return Math.max(this.minBytes, this.ratio * domain.documentBytes);
  }

  private async maybeCompact(): Promise<void> {
    const domain = this.domain;
    if (domain === undefined) return;
    const length = domain.journal.length;
    if (length <= this.threshold(domain) || length < domain.nextCompactionAt) return;
    try {
      await this.compact(domain);
    } catch (error) {
      domain.nextCompactionAt = domain.journal.length + this.threshold(domain);
      this.onCompactionError(error);
    }
  }

  /**
   * Rewrites the document with the whole domain and empties the journal. Just before the new
   * document is renamed into place the journal is marked as folded into it, so a crash before the
   * journal is emptied cannot replay its lines (delivery deltas among them) a second time.
   */
  private async compact(domain: OpenDomain): Promise<void> {
    const { state, journal } = domain;
    const hash = documentHasher();
    domain.documentBytes = await writeFileAtomic(
      this.fs,
      this.path,
      encodeDocumentChunks(state.tasks(), state.nextTaskNumber, state.tzdata, state.calls),
      {
        onData: (data) => hash.update(data),
        beforeRename: () => journal.appendFold(hash.digest()),
      },
    );
    await journal.reset(hash.digest());
  }
}

/** A storage keeping the JSON domain at `options.path` (see {@link JsonFileStorage}). */
export const jsonFileStorage = (options: JsonFileStorageOptions): JsonFileStorage => new JsonFileStorage(options);
