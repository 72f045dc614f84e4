// The version-1 JSON domain document (docs/storage.md): `{"version":1,"nextTaskNumber":n,"tasks":[…]}`.
// Decoding is strict and all-or-nothing: one bad row rejects the whole domain with
// `corrupt_schedule_log`. Encoding is deterministic, one row per line so the file diffs well:
//
//   {"version":1,"nextTaskNumber":3,"tasks":[
//   {"sessionId":"s1","status":"active","record":{…}},
//   {"sessionId":"s2","status":"inactive","record":{…},"lastDelivery":{…},"deliveryHistory":{…}}
//   ]}
//
// `nextTaskNumber` is the id counter (ids `sch_<n>` are never reused). It is optional on read —
// absent, it is derived as one more than the largest `sch_<n>` in use — and always written.
// `tzdata` (optional, a non-empty string) is the version of the time-zone data in use when the
// domain was last written after an open with another version; it is written only when known.
// `calls` (optional) holds the remembered calls of idempotent requests (calls.ts), oldest first.
import type { RememberedCall } from '../tasks/rememberedCalls.ts';
import type { TaskRow } from '../tasks/types.ts';
import { decodeRememberedCalls, encodeRememberedCall } from './calls.ts';
import { decodeRow, encodeRow, rowWhere } from './row.ts';
import { corrupt, describe, isPlainObject, isSafeIntegerAtLeast, readObject } from './strict.ts';

/** The one document version this build reads and writes. */
export const DOCUMENT_VERSION = 1;

/** The whole decoded domain: rows in stored order and the id counter. */
export interface DomainSnapshot {
  readonly tasks: readonly TaskRow[];
  readonly nextTaskNumber: number;
  /** The time-zone data version recorded in the domain, when one was. */
  readonly tzdata?: string;
  /** Remembered calls of idempotent requests, oldest first (absent when there are none). */
  readonly calls?: readonly RememberedCall[];
}

const PREFIX = 'sch_';
const ZERO = 48;

/**
 * The number `n` of a task id `sch_<n>` (`n` without leading zeros, at most 16 digits, a safe
 * integer), or undefined for any other id. Read from the characters: every row of a domain passes here.
 */
export function taskNumber(id: string): number | undefined {
  const length = id.length;
  if (length < 5 || length > 20 || !id.startsWith(PREFIX)) return undefined;
  let n = 0;
  for (let i = PREFIX.length; i < length; i++) {
    const digit = id.charCodeAt(i) - ZERO;
    if (digit < 0 || digit > 9 || (digit === 0 && i === PREFIX.length)) return undefined;
    n = n * 10 + digit;
  }
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Bits for task numbers up to this are kept in a bitmap; larger ones and other ids in a set. */
const MAX_BITMAP_NUMBER = 1 << 24;

/** The task ids seen so far, and one more than the largest `sch_<n>` among them. */
class SeenIds {
  private bits = new Uint8Array(1024);
  private readonly others = new Set<string>();
  /** One more than the largest `sch_<n>` added (1 when none). */
  next = 1;

  /** Adds `id`; false when it was already there. */
  add(id: string): boolean {
    const n = taskNumber(id);
    if (n === undefined || n > MAX_BITMAP_NUMBER) {
      if (n !== undefined && n >= this.next) this.next = n + 1;
      if (this.others.has(id)) return false;
      this.others.add(id);
      return true;
    }
    if (n >= this.next) this.next = n + 1;
    const byte = n >>> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (n & 7);
    if ((this.bits[byte] as number) & mask) return false;
    this.bits[byte] = (this.bits[byte] as number) | mask;
    return true;
  }
}

/** One more than the largest `sch_<n>` among `ids`, and at least `floor`. */
export function nextTaskNumberAfter(ids: Iterable<string>, floor = 1): number {
  let next = floor;
  for (const id of ids) {
    const n = taskNumber(id);
    if (n !== undefined && n >= next) next = n + 1;
  }
  return next;
}

/** Parses JSON text, failing with `corrupt_schedule_log` naming the source. */
export function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return corrupt(source, 'content', `is not valid JSON (${reason})`);
  }
}

/** Decodes document text (the bytes of `schedule.json` as UTF-8). */
export const decodeDocumentText = (text: string, source = 'schedule.json'): DomainSnapshot =>
  decodeDocument(parseJson(text, source), source);

/** Decodes a parsed document strictly; rejects unknown versions, fields, bad rows and duplicate ids. */
export function decodeDocument(value: unknown, source = 'schedule.json'): DomainSnapshot {
  if (!isPlainObject(value))
    corrupt(source, 'document', `must be a JSON object with version ${DOCUMENT_VERSION}, found ${describe(value)}`);
  if (value.version !== DOCUMENT_VERSION) {
    corrupt(source, 'version', `must be ${DOCUMENT_VERSION} (the only version this build reads), found ${describe(value.version)}`);
  }
  const raw = readObject(value, source, '', ['version', 'tasks'], ['nextTaskNumber', 'tzdata', 'calls']);
  const members = {
    ...decodeTzdata(raw, source),
    ...(Object.hasOwn(raw, 'calls') ? { calls: decodeRememberedCalls(raw.calls, source, 'calls') } : {}),
  };
  if (!Array.isArray(raw.tasks)) corrupt(source, 'tasks', `must be an array of task rows, found ${describe(raw.tasks)}`);
  const seen = new SeenIds();
  const items: unknown[] = raw.tasks;
  const tasks: TaskRow[] = new Array(items.length);
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const where = rowWhere(source, 'tasks', index, item);
    const row = decodeRow(item, where);
    if (!seen.add(row.record.id)) corrupt(where, 'record.id', 'repeats the id of an earlier task; task ids are unique');
    tasks[index] = row;
  }
  const derived = seen.next;
  if (!Object.hasOwn(raw, 'nextTaskNumber')) return { tasks, nextTaskNumber: derived, ...members };
  if (!isSafeIntegerAtLeast(raw.nextTaskNumber, 1)) {
    corrupt(source, 'nextTaskNumber', `must be a positive safe integer, found ${describe(raw.nextTaskNumber)}`);
  }
  if (raw.nextTaskNumber < derived) {
    corrupt(
      source,
      'nextTaskNumber',
      `is ${raw.nextTaskNumber} but task sch_${derived - 1} exists; it must exceed every task number in use`,
    );
  }
  return { tasks, nextTaskNumber: raw.nextTaskNumber, ...members };
}

/** The optional `tzdata` member of a document or journal line: a non-empty string of at most 64 characters. */
export function decodeTzdata(raw: Readonly<Record<string, unknown>>, source: string): { tzdata?: string } {
  if (!Object.hasOwn(raw, 'tzdata')) return {};
  const value = raw.tzdata;
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) {
    corrupt(source, 'tzdata', `must be the time-zone data version as a non-empty string when present, found ${describe(value)}`);
  }
  return { tzdata: value };
}

/** The document as text chunks (a head, one line per row, a tail), for streaming writes. */
export function* encodeDocumentChunks(
  tasks: Iterable<TaskRow>,
  nextTaskNumber: number,
  tzdata?: string,
  calls: readonly RememberedCall[] = [],
): Generator<string> {
  const tz = tzdata === undefined ? '' : `"tzdata":${JSON.stringify(tzdata)},`;
  const remembered = calls.length === 0 ? '' : `"calls":[${calls.map((c) => `\n${JSON.stringify(encodeRememberedCall(c))}`).join(',')}\n],`;
  yield `{"version":${DOCUMENT_VERSION},"nextTaskNumber":${nextTaskNumber},${tz}${remembered}"tasks":[`;
  let first = true;
  for (const row of tasks) {
    yield `${first ? '\n' : ',\n'}${encodeRow(row)}`;
    first = false;
  }
  yield first ? ']}\n' : '\n]}\n';
}

/** The document as one string (deterministic: equal domains give equal text). */
export const encodeDocument = (domain: DomainSnapshot): string =>
  [...encodeDocumentChunks(domain.tasks, domain.nextTaskNumber, domain.tzdata, domain.calls)].join('');
