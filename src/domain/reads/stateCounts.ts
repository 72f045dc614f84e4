// How many tasks are in each state (docs/api.md, `remote.counts` and `CatalogPage.counts`): the
// definition, purely. Each active task is in exactly one of scheduled / overdue / paused — the
// catalog's status filters of the same names — `failing` overlaps them (an active task whose
// latest delivery attempt failed), `ended` counts the inactive tasks and `total` every task. The
// service keeps these numbers up to date as rows change (src/runtime/stateTally.ts); `countRows`
// is the same definition as one pass over rows, for a reader that holds rows and no tally (a
// cluster Host reading the shared schema) and for tests that check the kept numbers.
import { describeKeys, describeValue, isPlainObject, ownValue, unknownKeys } from '../args/argShape.ts';
import { ScheduleError } from '../errors.ts';
import type { DeliveryFailure, TaskRow } from '../tasks/types.ts';
import { instantMs } from '../time/instant.ts';

/** How many tasks are in each state. */
export interface StateCounts {
  /** Active, not paused, target after now. */
  scheduled: number;
  /** Active, not paused, target at or before now. */
  overdue: number;
  /** Active and paused. */
  paused: number;
  /** Active with a failed latest delivery attempt (overlaps the three above). */
  failing: number;
  /** Inactive (delivered with no further target). */
  ended: number;
  /** Every task. */
  total: number;
}

/** The counts of the whole schedule, and of one Session when the request names one. */
export interface ScheduleCounts {
  readonly all: StateCounts;
  readonly session?: StateCounts;
}

/** `remote.counts(request?)`: `sessionId` adds that Session's counts to the answer. */
export interface CountsRequest {
  readonly sessionId?: string;
}

/** Counts of nothing. */
export const zeroCounts = (): StateCounts => ({ scheduled: 0, overdue: 0, paused: 0, failing: 0, ended: 0, total: 0 });

/** Where a row stands for the counts, apart from `failing`: the three active states, or ended. */
export type CountedState = 'scheduled' | 'overdue' | 'paused' | 'ended';

/** What the counts read of a task: a row, or a catalog entry. */
export type CountedTask = Pick<TaskRow, 'status' | 'pausedAt'> & { readonly record: Pick<TaskRow['record'], 'scheduledAt'> };

/** The state a task counts in at `nowMs`. */
export function countedState(row: CountedTask, nowMs: number): CountedState {
  if (row.status !== 'active') return 'ended';
  if (row.pausedAt !== undefined) return 'paused';
  return instantMs(row.record.scheduledAt) <= nowMs ? 'overdue' : 'scheduled';
}

/**
 * The counts of `rows` (or catalog entries) at `nowMs` in one pass; `failureOf` says which tasks have a failure status
 * (only an active task's counts as failing).
 */
export function countRows<T extends CountedTask>(
  rows: Iterable<T>,
  nowMs: number,
  failureOf: (row: T) => DeliveryFailure | undefined,
): StateCounts {
  const counts = zeroCounts();
  for (const row of rows) {
    counts.total++;
    counts[countedState(row, nowMs)]++;
    if (row.status === 'active' && failureOf(row) !== undefined) counts.failing++;
  }
  return counts;
}

/**
 * The Session a `remote.counts` request names: none for no request (or `{}`), else `sessionId`.
 *
 * @throws ScheduleError `invalid_selector` for a request that is not an object, has another
 *   member, or a `sessionId` that is not a string.
 */
export function countsSessionId(request: unknown): string | undefined {
  if (request === undefined) return undefined;
  if (!isPlainObject(request))
    throw new ScheduleError('invalid_selector', `remote.counts takes nothing or {sessionId}; got ${describeValue(request)}.`);
  const extra = unknownKeys(request, ['sessionId']);
  if (extra.length > 0)
    throw new ScheduleError('invalid_selector', `remote.counts does not accept ${describeKeys(extra)}; accepted: sessionId.`);
  const sessionId = ownValue(request, 'sessionId');
  if (sessionId !== undefined && typeof sessionId !== 'string') {
    throw new ScheduleError('invalid_selector', `remote.counts needs sessionId as a string; got ${describeValue(sessionId)}.`);
  }
  return sessionId;
}
