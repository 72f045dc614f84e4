// Reading a JSON domain from disk without changing anything: the document (`schedule.json`,
// absent → empty domain) and its journal (`schedule.json.journal`, replayed in order over the
// document). Every problem — an unreadable file, invalid UTF-8 or JSON, any invalid row or
// journal line, a journal whose document is missing — is `corrupt_schedule_log` naming the file,
// task and field. (The storage writes the document before it first creates the journal, so a
// journal alone means the document was lost: it would open as a partial domain and reuse ids.)
import { basename } from 'node:path';
import { decodeDocument, parseJson } from '../domain/codec/index.ts';
import { isScheduleError, ScheduleError } from '../domain/errors.ts';
import { DomainState } from './domainState.ts';
import { type FileSystem, nodeFileSystem, readIfExists } from './fsSeam.ts';
import { type JournalContents, parseJournal } from './journal.ts';

/** The journal's path for a document path. */
export const journalPathFor = (path: string): string => `${path}.journal`;

/** The lock file's path for a document path. */
export const lockPathFor = (path: string): string => `${path}.lock`;

/** A domain as read from disk. */
export interface LoadedDomain {
  /** The document with the journal replayed over it. */
  readonly state: DomainState;
  /** Size of `schedule.json` in bytes (0 when absent). */
  readonly documentBytes: number;
  readonly journal: JournalContents;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

async function readFileStrict(fs: FileSystem, path: string): Promise<Buffer | undefined> {
  try {
    return await readIfExists(fs, path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ScheduleError('corrupt_schedule_log', `${basename(path)}: the file cannot be read (${reason})`, { cause: error });
  }
}

function decodeText(bytes: Buffer, source: string): string {
  try {
    return utf8.decode(bytes);
  } catch (error) {
    throw new ScheduleError('corrupt_schedule_log', `${source}: content is not valid UTF-8 text`, { cause: error });
  }
}

/**
 * Reads the document and journal at `path` (read-only: takes no lock, writes nothing).
 *
 * @throws ScheduleError `corrupt_schedule_log` for anything but a valid domain.
 */
export async function loadDomainFiles(path: string, fs: FileSystem = nodeFileSystem): Promise<LoadedDomain> {
  const source = basename(path);
  const documentBytes = await readFileStrict(fs, path);
  const journalPath = journalPathFor(path);
  const journalBytes = await readFileStrict(fs, journalPath);
  if (documentBytes === undefined && journalBytes !== undefined) {
    throw new ScheduleError(
      'corrupt_schedule_log',
      `${source} is missing but its journal ${basename(journalPath)} exists (${journalBytes.length} bytes): the journal holds only the changes made since ${source} was last written, so opening it alone would lose tasks and hand out their ids again. Restore ${source}; both files are left unchanged.`,
    );
  }
  const snapshot = documentBytes === undefined ? undefined : decodeDocument(parseJson(decodeText(documentBytes, source), source), source);
  const journal = parseJournal(journalBytes, journalPath, documentBytes);
  const state = new DomainState(snapshot);
  for (const batch of journal.batches) state.apply(batch);
  return { state, documentBytes: documentBytes?.length ?? 0, journal };
}

/** Rethrows `error` unless it is a ScheduleError, wrapping it as `corrupt_schedule_log`. */
export function asCorrupt(error: unknown, path: string): ScheduleError {
  if (isScheduleError(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new ScheduleError('corrupt_schedule_log', `${basename(path)}: the domain cannot be read (${reason})`, { cause: error });
}
