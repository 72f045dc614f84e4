// The requests of the remote namespace (`service.remote`) as a Host's code writes them; their
// answers are declared beside the read models that compute them. The service checks every request
// at run time as well (a Host may pass parsed JSON on), so a malformed request is answered with a
// refusal, never trusted. Types only.

import type { CatalogFilter } from '../reads/catalogPage.ts';
import type { BulkAction } from '../tasks/bulk.ts';

/**
 * The options of a mutating remote method (`update`, `delete`, `pause`, `resume`, `trigger`,
 * `reanchor`, `bulk`): `callId` is an idempotency key (1 to 256 characters, such as an HTTP
 * `Idempotency-Key`). The same key in the same Session with the same request answers the first
 * answer and writes nothing; with another method or request it is `idempotency_conflict` (SPEC §15).
 * A bulk call is remembered under its filter's Session, its first listed task's, or `*`.
 */
export interface RemoteCallOptions {
  readonly callId?: string;
}

/** One task of one Session. */
export interface TaskRef {
  readonly sessionId: string;
  readonly id: string;
}

/** `remote.list`: the active tasks of one Session. */
export interface SessionRef {
  readonly sessionId: string;
}

/** `remote.history`: one page of a task's saved deliveries, newest first. */
export interface HistoryRequest extends TaskRef {
  /** Integer 1–100. */
  readonly limit: number;
  /** An exclusive message-id cursor: a `nextBefore` from an earlier page. */
  readonly before?: string;
}

/** `remote.update`: a complete-record compare-and-set. Omitted fields keep their stored values. */
export interface RemoteUpdateRequest extends TaskRef {
  /** The complete record as it was read before editing (`CatalogEntry.record`); a different stored record is `schedule_conflict`. */
  readonly expected: unknown;
  readonly title?: string;
  readonly prompt?: string;
  /** A timing change, as `schedule_update` takes it: `{kind: 'at' | 'every' | 'daily' | 'weekly' | 'cron', …}`. */
  readonly change?: unknown;
  /** `true` pauses, `false` resumes, in the same write (a pause never makes `expected` conflict). */
  readonly paused?: boolean;
  /** With `paused: true`: why the task is paused, 1–500 characters (trimmed; replaces the note of a paused task). */
  readonly pauseNote?: string;
}

/** `remote.pause`: one task, and why it is paused (1–500 characters, trimmed; kept while it stays paused). */
export interface PauseRequest extends TaskRef {
  readonly note?: string;
}

/**
 * `remote.reanchor` in bulk: `{all: true}` (every drifted task, or only one Session's with
 * `sessionId`) or `{sessionId, ids}` (listed tasks of one Session; tasks that are not drifted are left alone).
 */
export type BulkReanchorRequest =
  | { readonly all: true; readonly sessionId?: string }
  | { readonly sessionId: string; readonly ids: readonly string[] };

/**
 * `remote.bulk`: pause, resume or run now (`trigger`; retry now for a failing task) the listed
 * tasks, or every task the filter matches when the call starts (the filter as `remote.catalog`
 * takes it; without `sessionId` it spans Sessions). `note` goes with `pause` only.
 */
export type BulkRequest = { readonly action: BulkAction; readonly note?: string } & (
  | { readonly tasks: readonly TaskRef[] }
  | { readonly filter: CatalogFilter }
);
