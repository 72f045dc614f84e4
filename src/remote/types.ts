// The remote namespace's requests and the archive admission's answer, as a Host's code sees them.
// The service checks every request at run time as well (a Host may pass parsed JSON on), so a
// malformed request is answered with a refusal, never trusted.

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
}

/** One entry of archive admission's `sessionActivity`: the Session's active tasks. */
export interface ArchiveActivity {
  readonly family: 'schedule';
  readonly items: Array<{ readonly id: string; readonly label: string }>;
}

/** The paging options and the answer of `remote.catalog(request)` (see src/domain/catalogPage.ts). */
export type { CatalogFilter, CatalogPage, CatalogRequest, CatalogSort, CatalogStatusFilter } from '../domain/catalogPage.ts';
