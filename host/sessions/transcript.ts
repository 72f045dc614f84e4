// The transcript file of one Session: one JSON object per line (JSONL), appended and fsynced.
// Reading is strict about the complete lines and forgiving about the last one: a crash during an
// append can leave a torn final line without its newline, which was never acknowledged by a
// flush, so `repairTornTail` cuts it off before the Session appends again.
import { open, readFile, truncate } from 'node:fs/promises';

/** One line of a Session transcript. */
export interface TranscriptLine {
  readonly messageId: string;
  readonly role: 'user' | 'assistant';
  /** `schedule` for delivered reminders, `demo-agent` for the demo agent's answers. */
  readonly producer: string;
  readonly text: string;
  /** When the line was flushed, by the Host's clock (canonical UTC). */
  readonly at: string;
  /** The reminders a `schedule` message carries (`<taskId>@<occurrence>`). */
  readonly idempotencyKeys?: readonly string[];
  /** The Host (cluster replica) that wrote the line, in PostgreSQL transcripts: the one that delivered a reminder. */
  readonly hostId?: string;
}

const isString = (value: unknown): value is string => typeof value === 'string';

function parseLine(text: string, path: string, lineNumber: number): TranscriptLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${path}:${lineNumber} is not a JSON line.`);
  }
  const v = value as Partial<Record<keyof TranscriptLine, unknown>> | null;
  const keys = v?.idempotencyKeys;
  const valid =
    typeof v === 'object' &&
    v !== null &&
    isString(v.messageId) &&
    (v.role === 'user' || v.role === 'assistant') &&
    isString(v.producer) &&
    isString(v.text) &&
    isString(v.at) &&
    (keys === undefined || (Array.isArray(keys) && keys.every(isString)));
  if (!valid) throw new Error(`${path}:${lineNumber} is not a transcript line.`);
  return value as TranscriptLine;
}

/** The complete lines of a transcript text; a torn last line (no newline) is left out. */
export function parseTranscript(text: string, path: string): TranscriptLine[] {
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, number }) => parseLine(line, path, number));
}

/** Reads a transcript file; a missing file is an empty transcript. */
export async function readTranscript(path: string): Promise<{ lines: TranscriptLine[]; text: string } | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return { lines: parseTranscript(text, path), text };
}

/** Cuts a torn final line (bytes after the last newline) off the file, durably. */
export async function repairTornTail(path: string, text: string): Promise<void> {
  if (text === '' || text.endsWith('\n')) return;
  await truncate(path, Buffer.byteLength(text.slice(0, text.lastIndexOf('\n') + 1)));
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Appends lines and fsyncs the file before resolving. */
export async function appendLines(path: string, lines: readonly TranscriptLine[]): Promise<void> {
  const handle = await open(path, 'a');
  try {
    await handle.writeFile(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    await handle.sync();
  } finally {
    await handle.close();
  }
}
