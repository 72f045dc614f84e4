// The in-memory storage: the same port, codec and semantics as the JSON file storage without a
// disk. `initial` is a version-1 document (a parsed value or JSON text) decoded strictly at open,
// so a bad one rejects with `corrupt_schedule_log` just like a bad schedule.json. Tests read the
// current document with `document()` and make the next commit fail with `failNextCommit()`.
// A closed memory storage can be opened again and returns what was committed (a Host restart).
import { type DomainSnapshot, decodeDocument, encodeDocument, parseJson } from '../domain/codec/index.ts';
import { ScheduleError } from '../domain/errors.ts';
import type { CommitBatch, ScheduleStorage, StoredDomain } from '../ports.ts';
import { DomainState, prepareBatch } from './domainState.ts';

const SOURCE = 'memory storage document';

/** Deeper than any valid document nests (document, tasks, row, history, records, receipt). */
const MAX_DEPTH = 256;

/**
 * A fresh copy of plain data: arrays and objects (their own enumerable members) rebuilt,
 * primitives as they are. Functions and symbols, and nesting beyond {@link MAX_DEPTH} (a cycle),
 * are refused.
 */
function copyPlain(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'function' || typeof value === 'symbol') throw new TypeError(`a ${typeof value} is not JSON data`);
    return value;
  }
  if (depth >= MAX_DEPTH) throw new RangeError(`nested more than ${MAX_DEPTH} levels deep (a cycle?)`);
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyPlain(value[i], depth + 1);
    return out;
  }
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const member = copyPlain(source[key], depth + 1);
    // An own `__proto__` member stays a member (assigning it would set the prototype).
    if (key === '__proto__') Object.defineProperty(out, key, { value: member, enumerable: true, writable: true, configurable: true });
    else out[key] = member;
  }
  return out;
}

/**
 * A private copy of the initial value: the decoder validates in place and keeps the objects it
 * validates, so the caller's objects are neither changed nor kept.
 */
function copyOf(value: unknown): unknown {
  try {
    return copyPlain(value, 0);
  } catch (error) {
    throw new ScheduleError('corrupt_schedule_log', `${SOURCE}: the initial document is not plain JSON data`, { cause: error });
  }
}

/** The memory storage; see {@link memoryStorage}. */
export class MemoryStorage implements ScheduleStorage {
  private state: DomainState | undefined;
  private isOpen = false;
  private failures: unknown[] = [];
  private commits = 0;

  /** The initial document until it has been decoded (then only the decoded domain is kept). */
  private initial: unknown;

  constructor(initial?: unknown) {
    this.initial = initial;
  }

  /**
   * Decodes `initial` (on the first open) or returns what was committed before.
   *
   * @throws ScheduleError `corrupt_schedule_log` for a bad initial document.
   */
  async open(): Promise<StoredDomain> {
    if (this.isOpen) throw new ScheduleError('internal_error', 'The memory schedule storage is already open.');
    if (this.state === undefined) {
      const initial = this.initial;
      const snapshot: DomainSnapshot | undefined =
        initial === undefined
          ? undefined
          : decodeDocument(typeof initial === 'string' ? parseJson(initial, SOURCE) : copyOf(initial), SOURCE);
      this.state = new DomainState(snapshot);
      this.initial = undefined;
    }
    this.isOpen = true;
    return this.state.snapshot();
  }

  /**
   * Applies a batch (after the same validation as the file storage).
   *
   * @throws ScheduleError `persistence_uncertain` when a failure was injected with
   *   {@link failNextCommit} (nothing changes); `internal_error` for an invalid batch or a closed storage.
   */
  async commit(batch: CommitBatch): Promise<void> {
    const state = this.state;
    if (!this.isOpen || state === undefined) throw new ScheduleError('internal_error', 'The memory schedule storage is not open.');
    const prepared = prepareBatch(batch, state);
    await Promise.resolve();
    if (this.failures.length > 0) {
      const cause = this.failures.shift();
      throw new ScheduleError('persistence_uncertain', 'The schedule change could not be made durable (injected failure).', { cause });
    }
    state.apply(prepared);
    this.commits++;
  }

  /** Closes; the committed domain stays and is returned by the next `open()`. */
  async close(): Promise<void> {
    this.isOpen = false;
  }

  /** The current domain as the JSON document value schedule.json would hold. */
  document(): unknown {
    return JSON.parse(this.documentText());
  }

  /** The current domain as document text (deterministic). */
  documentText(): string {
    return encodeDocument(this.state?.snapshot() ?? { tasks: [], nextTaskNumber: 1 });
  }

  /** Makes the next commit reject with `persistence_uncertain` (cause `error`) and change nothing. */
  failNextCommit(error: unknown = new Error('injected storage failure')): void {
    this.failures.push(error);
  }

  /** How many commits have succeeded. */
  get commitCount(): number {
    return this.commits;
  }
}

/** An in-memory storage, optionally seeded with a version-1 document (value or JSON text). */
export const memoryStorage = (initial?: unknown): MemoryStorage => new MemoryStorage(initial);
