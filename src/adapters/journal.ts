// The append-only journal beside `schedule.json`: one JSON line per committed batch, appended and
// fsynced before the batch is acknowledged, replayed over the document at open, and emptied once
// the document has been rewritten to include it (compaction). A torn last line — bytes after the
// final newline, left by a crash mid-append — is ignored at open and cut off before the next
// append; every complete line must decode strictly. After a failed append the file may hold a
// partial line, so the next append first truncates back to the last durable length.
import { basename, dirname } from 'node:path';
import { type DomainBatch, decodeBatch, parseJson } from '../domain/codec/index.ts';
import { ScheduleError } from '../domain/errors.ts';
import { type FileHandleLike, type FileSystem, OPEN_OR_CREATE, syncDirectory, writeFully } from './fsSeam.ts';

const NEWLINE = 0x0a;

/** What the journal file holds, as read at open. */
export interface JournalContents {
  /** The complete lines, decoded. */
  readonly batches: readonly DomainBatch[];
  /** Bytes up to and including the last newline: the durable, replayable part. */
  readonly goodLength: number;
  /** The file's length (more than `goodLength` when a torn tail is present). */
  readonly fileLength: number;
  readonly exists: boolean;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeLine(bytes: Uint8Array, source: string): string {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw new ScheduleError('corrupt_schedule_log', `${source}: content is not valid UTF-8 text`, { cause: error });
  }
}

/** Decodes journal bytes: complete lines strictly, a trailing partial line ignored. */
export function parseJournal(bytes: Buffer | undefined, path: string): JournalContents {
  if (bytes === undefined) return { batches: [], goodLength: 0, fileLength: 0, exists: false };
  const name = basename(path);
  const batches: DomainBatch[] = [];
  let start = 0;
  let line = 1;
  for (let end = bytes.indexOf(NEWLINE, start); end >= 0; end = bytes.indexOf(NEWLINE, start)) {
    const source = `${name} line ${line}`;
    batches.push(decodeBatch(parseJson(decodeLine(bytes.subarray(start, end), source), source), source));
    start = end + 1;
    line++;
  }
  return { batches, goodLength: start, fileLength: bytes.length, exists: true };
}

/** Appends to, empties and removes the journal file; one instance per open storage. */
export class JournalWriter {
  private handle: FileHandleLike | undefined;
  private good: number;
  private dirty: boolean;
  private exists: boolean;

  constructor(
    private readonly fs: FileSystem,
    private readonly path: string,
    contents: JournalContents,
  ) {
    this.good = contents.goodLength;
    this.dirty = contents.fileLength > contents.goodLength;
    this.exists = contents.exists;
  }

  /** Durable bytes in the journal. */
  get length(): number {
    return this.good;
  }

  /** True when the file exists and holds anything (entries or a torn tail). */
  get hasContent(): boolean {
    return this.good > 0 || this.dirty;
  }

  /** Appends complete lines and fsyncs; resolves once they are durable. */
  async append(data: Buffer): Promise<void> {
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

  /** Empties the journal after the document has been rewritten to include every entry. */
  async reset(): Promise<void> {
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
