// The bounded form of the time-zone data drift report, `remote.drift({limit})`: the first drifted
// targets in the report's order (by target, then task id) and how many there are in all. A
// schedule of 100,000 tasks can have tens of thousands drifted after a zone rule change; a reader
// that shows a screenful asks for a screenful. Every task is still checked, but with the cheap
// test of the check at open (drift.ts `driftedRows`), and only the kept few get their entries
// built. Pure: it checks the request and reads the rows it is given.
import { describeKeys, describeValue, isPlainObject, listWords, ownValue, unknownKeys } from '../args/argShape.ts';
import { ScheduleError } from '../errors.ts';
import type { TaskRow } from '../tasks/types.ts';
import { compareEntries, type DriftEntry, type DriftReport, driftedRows, driftOf } from '../time/drift.ts';
import type { WallClockFirings } from '../time/recurrence.ts';

/** The largest `limit` of `remote.drift({limit})`. */
export const MAX_DRIFT_LIMIT = 500;

/** `remote.drift(request)`: at most `limit` entries (an integer 1–500). */
export interface DriftRequest {
  readonly limit: number;
}

/** The answer to `remote.drift(request)`: the report with its first `limit` tasks, and how many are drifted in all. */
export interface DriftPage extends DriftReport {
  /** How many active wall-clock tasks are drifted, listed or not. */
  readonly total: number;
}

const REQUEST_MEMBERS = ['limit'];

/**
 * The `limit` of a `remote.drift` request.
 *
 * @throws ScheduleError `invalid_selector` for a request that is not an object or has another
 *   member; `invalid_rule` when `limit` is not an integer 1–500.
 */
export function driftLimitOf(request: unknown): number {
  if (!isPlainObject(request)) {
    throw new ScheduleError('invalid_selector', `remote.drift takes nothing, or an object with limit; got ${describeValue(request)}.`);
  }
  const extra = unknownKeys(request, REQUEST_MEMBERS);
  if (extra.length > 0) {
    throw new ScheduleError(
      'invalid_selector',
      `remote.drift does not accept ${describeKeys(extra)}; accepted: ${listWords(REQUEST_MEMBERS)}.`,
    );
  }
  const limit = ownValue(request, 'limit');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_DRIFT_LIMIT) {
    throw new ScheduleError('invalid_rule', `limit ${describeValue(limit)} is not accepted: use an integer from 1 to ${MAX_DRIFT_LIMIT}.`);
  }
  return limit;
}

/** The first `limit` drifted tasks among `rows` (in the order of `driftReport`), with the number of all of them. */
export function driftedFirst(rows: Iterable<TaskRow>, limit: number): { tasks: DriftEntry[]; total: number } {
  // Kept sorted; a row past the last kept one is dropped at once once the page is full.
  const kept: TaskRow[] = [];
  let total = 0;
  for (const row of driftedRows(rows)) {
    total++;
    const last = kept[kept.length - 1];
    if (kept.length >= limit && last !== undefined && compareEntries(row.record, last.record) >= 0) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = kept[mid];
      if (k !== undefined && compareEntries(k.record, row.record) <= 0) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, row);
    if (kept.length > limit) kept.pop();
  }
  const cache = new Map<string, WallClockFirings>();
  const tasks = kept.flatMap((row) => driftOf(row, cache) ?? []);
  return { tasks, total };
}
