// The append-only journal beside `schedule.json`: one JSON line per committed batch, appended and
// fsynced before the batch is acknowledged, replayed over the document at open, and emptied once
// the document has been rewritten to include it (compaction). A torn last line — bytes after the
// final newline, left by a crash mid-append — is ignored at open and cut off before the next
// append; every complete line must decode strictly. After a failed append the file may hold a
// partial line, so the next append first truncates back to the last durable length.
//
// A delivery commit is written as a delta of the row it applies to (codec/delta.ts), which must
// be replayed onto exactly that row, once. So the journal names the document it continues: the
// first line of a new journal carries `"document":"sha256-…"` (the hash of
// schedule.json's bytes) after its version, and a compaction appends `{"version":1,"folded":"sha256-…"}`
// (the new document's hash) just before it renames the new document into place. At open the lines
// after the last fold line naming the current document are replayed (a crash between that rename
// and the emptying of the journal leaves lines the document already holds), or all of them when
// none does; a first line naming another document than schedule.json, with no such fold line, is
// `corrupt_schedule_log` (schedule.json was replaced under its journal). A journal whose first
// line names no document (an older version's) holds whole rows only and is replayed whole, and
// deltas are appended only to a journal that names its document.
import { createHash } from 'node:crypto';
import { basename, dirname } from 'node:path';
import { type DomainBatch, decodeBatch, deliveryDeltaOf, parseJson } from '../domain/codec/index.ts';
import { corrupt, describe, isPlainObject, readObject } from '../domain/codec/strict.ts';
import { ScheduleError } from '../domain/errors.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import { type FileHandleLike, type FileSystem, OPEN_OR_CREATE, syncDirectory, writeFully } from './fsSeam.ts';

const NEWLINE = 0x0a;
const HASH = /^sha256-[A-Za-z0-9_-]{43}$/;

/** What the journal file holds, as read at open. */
export interface JournalContents {
  /** The complete lines to replay over the document, decoded. */
  readonly batches: readonly DomainBatch[];
  /** Bytes up to and including the last newline: the durable, replayable part. */
  readonly goodLength: number;
  /** The file's length (more than `goodLength` when a torn tail is present). */
  readonly fileLength: number;
  readonly exists: boolean;
  /** The hash of the document the journal was read against (absent without a document). */
  readonly documentHash?: string;
  /** True when the journal's lines can be placed against a document (a header, a fold line, or no lines at all). */
  readonly anchored: boolean;
}

/** The journal's name for a document: `sha256-` and the base64url SHA-256 of its bytes. */
export const documentHash = (bytes: Uint8Array): string => `sha256-${createHash('sha256').update(bytes).digest('base64url')}`;

/** Hashes a document as it is written, block by block; `digest()` may be called more than once. */
export function documentHasher(): { update(data: Uint8Array): void; digest(): string } {
  const hash = createHash('sha256');
  let digest: string | undefined;
  return {
    update: (data) => void hash.update(data),
    digest: () => {
      digest ??= `sha256-${hash.digest('base64url')}`;
      return digest;
    },
  };
}

const LINE_START = '{"version":1,';
const foldLine = (hash: string): string => `{"version":1,"folded":"${hash}"}\n`;

type Entry =
  | { readonly kind: 'fold'; readonly hash: string }
  | { readonly kind: 'batch'; readonly batch: DomainBatch; readonly document?: string };

function readHash(value: unknown, source: string, field: string): string {
  if (typeof value !== 'string' || !HASH.test(value))
    corrupt(source, field, `must be a document hash "sha256-…", found ${describe(value)}`);
  return value;
}

function decodeEntry(value: unknown, source: string, first: boolean): Entry {
  if (isPlainObject(value) && Object.hasOwn(value, 'folded')) {
    const raw = readObject(value, source, '', ['version', 'folded']);
    if (raw.version !== 1) corrupt(source, 'version', `must be 1, found ${describe(raw.version)}`);
    return { kind: 'fold', hash: readHash(raw.folded, source, 'folded') };
  }
  if (isPlainObject(value) && Object.hasOwn(value, 'document')) {
    if (!first) corrupt(source, 'document', "names the journal's document but only the first line may");
    const document = readHash(value.document, source, 'document');
    const { document: _named, ...batch } = value;
    return { kind: 'batch', batch: decodeBatch(batch, source), document };
  }
  return { kind: 'batch', batch: decodeBatch(value, source) };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeLine(bytes: Uint8Array, source: string): string {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw new ScheduleError('corrupt_schedule_log', `${source}: content is not valid UTF-8 text`, { cause: error });
  }
}

/**
 * Decodes journal bytes: complete lines strictly, a trailing partial line ignored, and chooses the
 * lines to replay over the document whose bytes are `document` (see the top of this file).
 */
export function parseJournal(bytes: Buffer | undefined, path: string, document?: Uint8Array): JournalContents {
  const hash = document === undefined ? undefined : documentHash(document);
  const known = hash === undefined ? {} : { documentHash: hash };
  if (bytes === undefined) return { batches: [], goodLength: 0, fileLength: 0, exists: false, anchored: true, ...known };
  const name = basename(path);
  const entries: Entry[] = [];
  let start = 0;
  let line = 1;
  for (let end = bytes.indexOf(NEWLINE, start); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
    const source = `${name} line ${line}`;
    entries.push(decodeEntry(parseJson(decodeLine(bytes.subarray(start, end), source), source), source, line === 1));
    start = end + 1;
    line++;
  }
  const firstEntry = entries[0];
  const header = firstEntry?.kind === 'batch' ? firstEntry.document : undefined;
  let from = -1;
  entries.forEach((entry, index) => {
    if (entry.kind === 'fold' && entry.hash === hash) from = index;
  });
  if (from < 0 && header !== undefined && header !== hash) {
    corrupt(
      `${name} line 1`,
      'document',
      `names the document ${header}, but ${basename(path, '.journal')} is ${hash ?? 'missing'}: the journal continues another version of it (was it replaced?); both files are left unchanged`,
    );
  }
  const batches: DomainBatch[] = [];
  for (const entry of entries.slice(from + 1)) if (entry.kind === 'batch') batches.push(entry.batch);
  const anchored = entries.length === 0 || header !== undefined || from >= 0;
  return { batches, goodLength: start, fileLength: bytes.length, exists: true, anchored, ...known };
}

/**
 * The journal form of a prepared batch: each put that only records a delivery on top of the row
 * `baseOf` gives for its id becomes a delivery delta; every other put stays whole.
 */
export function journalBatch(batch: DomainBatch, baseOf: (id: string) => TaskRow | undefined): DomainBatch {
  const puts: TaskRow[] = [];
  const deliveries = [];
  for (const row of batch.puts) {
    const base = baseOf(row.record.id);
    const delta = base === undefined ? undefined : deliveryDeltaOf(base, row);
    if (delta === undefined) puts.push(row);
    else deliveries.push(delta);
  }
  if (deliveries.length === 0) return batch;
  const { nextTaskNumber: _n, source: _s, ...rest } = batch;
  const out = { ...rest, puts, deliveries };
  return batch.nextTaskNumber === undefined ? out : { ...out, nextTaskNumber: batch.nextTaskNumber };
}

/** Appends to, empties and removes the journal file; one instance per open storage. */
export class JournalWriter {
  private handle: FileHandleLike | undefined;
  private good: number;
  private dirty: boolean;
  private exists: boolean;
  private anchored: boolean;
  private document: string | undefined;

  constructor(
    private readonly fs: FileSystem,
    private readonly path: string,
    contents: JournalContents,
  ) {
    this.good = contents.goodLength;
    this.dirty = contents.fileLength > contents.goodLength;
    this.exists = contents.exists;
    this.anchored = contents.anchored;
    this.document = contents.documentHash;
  }

  /** Durable bytes in the journal. */
  get length(): number {
    return this.good;
  }

  /** True when the file exists and holds anything (entries or a torn tail). */
  get hasContent(): boolean {
    return this.good > 0 || this.dirty;
  }

  /** True when the next append may hold delivery deltas: the journal names (or will name) its document. */
  get takesDeltas(): boolean {
    return this.document !== undefined && (this.good === 0 || this.anchored);
  }

  /**
   * Appends complete batch lines (each `{"version":1,…}` and a newline) and fsyncs; resolves once
   * they are durable. The first line of an empty journal names the document it continues.
   */
  async append(lines: string): Promise<void> {
    const document = this.good === 0 ? this.document : undefined;
    if (document !== undefined && !lines.startsWith(LINE_START)) throw new Error('journal lines must start with {"version":1,');
    const text = document === undefined ? lines : `${LINE_START}"document":"${document}",${lines.slice(LINE_START.length)}`;
    await this.write(Buffer.from(text, 'utf8'));
    if (document !== undefined) this.anchored = true;
  }

  /**
   * Marks everything appended so far as held by the document whose hash is `hash`, before that
   * document is renamed into place (nothing to mark in an empty journal).
   */
  async appendFold(hash: string): Promise<void> {
    if (this.good === 0) return;
    await this.write(Buffer.from(foldLine(hash), 'utf8'));
    this.anchored = true;
  }

  /** Empties the journal after the document (whose hash is `hash`) has been rewritten to include every entry. */
  async reset(hash: string): Promise<void> {
    this.document = hash;
    if (!this.exists) return;
    const handle = await this.open();
    this.good = 0;
    this.dirty = true;
    await handle.truncate(0);
    await handle.sync();
    this.dirty = false;
  }

  /** Closes and deletes the journal file (only after the document holds everything). */
  async remove(): Promise<void> {
    await this.close();
    if (!this.exists) return;
    await this.fs.unlink(this.path);
    this.exists = false;
    this.good = 0;
    this.dirty = false;
    await syncDirectory(this.fs, dirname(this.path));
  }

  /** Closes the file handle, if open. */
  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
  }

  private async write(data: Buffer): Promise<void> {
    const handle = await this.open();
    try {
      if (this.dirty) {
        await handle.truncate(this.good);
        this.dirty = false;
      }
      this.dirty = true;
      await writeFully(handle, data, this.good);
      await handle.sync();
      this.dirty = false;
      this.good += data.length;
    } catch (error) {
      this.dirty = true;
      throw error;
    }
  }

  private async open(): Promise<FileHandleLike> {
    if (this.handle !== undefined) return this.handle;
    const handle = await this.fs.open(this.path, OPEN_OR_CREATE);
    if (!this.exists) {
      try {
        await syncDirectory(this.fs, dirname(this.path));
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
      this.exists = true;
    }
    this.handle = handle;
    return handle;
  }
}
