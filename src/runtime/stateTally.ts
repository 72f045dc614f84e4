// The counts per state (src/domain/reads/stateCounts.ts) kept up to date as the task table changes: every
// committed put or delete adjusts the whole schedule's numbers and its Session's, so a read costs
// no scan. Which active tasks are overdue depends on the clock, so the unpaused targets are held in
// a `TargetSplit` that answers how many lie at or before now; a Session's overdue tasks are found by
// a scan of that Session's active rows alone. A task is failing while its row carries a failure
// status, and also from when its actor took a failure that its row does not carry (`noteFailing`:
// a receipt whose write failed, or a failure whose own write is still queued) until a delivery of
// it is committed, it ends or it is deleted — as the catalog reports it.

import { type StateCounts, zeroCounts } from '../domain/reads/stateCounts.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import { instantMs } from '../domain/time/instant.ts';
import { TargetSplit } from './targetSplit.ts';

/** The clock-free numbers of one scope: the whole schedule, or one Session. */
interface Tally {
  total: number;
  ended: number;
  paused: number;
  failing: number;
}

const emptyTally = (): Tally => ({ total: 0, ended: 0, paused: 0, failing: 0 });

/**
 * Whether `next` (replacing `previous`) is failing, given whether the task was: its own failure
 * status when it carries one; else a failure noted earlier lasts until a delivery is committed.
 */
function stillFailing(previous: TaskRow | undefined, next: TaskRow, was: boolean): boolean {
  if (next.status !== 'active') return false;
  if (next.failure !== undefined) return true;
  return was && previous?.failure === undefined && next.lastDelivery === previous?.lastDelivery;
}

/** True when a row's target decides between scheduled and overdue: active and not paused. */
const isRunning = (row: TaskRow): boolean => row.status === 'active' && row.pausedAt === undefined;

export class StateTally {
  private readonly all = emptyTally();
  private readonly sessions = new Map<string, Tally>();
  /** The targets of the active, unpaused tasks. */
  private readonly targets = new TargetSplit();
  /** The failing tasks. */
  private readonly failing = new Set<string>();

  /**
   * Counts a row of a freshly opened domain (none of them known yet); follow the rows with one
   * `loaded`.
   */
  load(row: TaskRow): void {
    this.adjust(row, 1);
    if (isRunning(row)) this.targets.append(row.record.id, instantMs(row.record.scheduledAt));
    if (stillFailing(undefined, row, false)) this.setFailing(row, true);
  }

  /** The rows of the opened domain are all counted. */
  loaded(): void {
    this.targets.heapify();
  }

  /** A committed change: `previous` (if any) is replaced by `next` (if any, with the same id). */
  change(previous: TaskRow | undefined, next: TaskRow | undefined): void {
    const row = next ?? previous;
    if (row === undefined) return;
    const id = row.record.id;
    const was = this.failing.has(id);
    if (was && previous !== undefined) this.setFailing(previous, false);
    if (previous !== undefined) this.adjust(previous, -1);
    if (next !== undefined) this.adjust(next, 1);
    if (next !== undefined && stillFailing(previous, next, was)) this.setFailing(next, true);
    if (next !== undefined && isRunning(next)) this.targets.set(id, instantMs(next.record.scheduledAt));
    else if (previous !== undefined && isRunning(previous)) this.targets.delete(id);
  }

  /** The task's actor took a failure: the active row counts as failing until a delivery of it is committed. */
  noteFailing(row: TaskRow): void {
    if (row.status === 'active' && !this.failing.has(row.record.id)) this.setFailing(row, true);
  }

  /** The whole schedule's counts at `now`. */
  counts(now: number): StateCounts {
    const overdue = this.targets.atOrBefore(now);
    return finish(this.all, overdue, this.targets.size - overdue);
  }

  /** One Session's counts at `now`; `activeRows` are its active rows (scanned for overdue targets). */
  sessionCounts(sessionId: string, now: number, activeRows: Iterable<TaskRow>): StateCounts {
    const tally = this.sessions.get(sessionId);
    if (tally === undefined) return zeroCounts();
    let overdue = 0;
    let running = 0;
    for (const row of activeRows) {
      if (!isRunning(row)) continue;
      running++;
      if (instantMs(row.record.scheduledAt) <= now) overdue++;
    }
    return finish(tally, overdue, running - overdue);
  }

  private adjust(row: TaskRow, by: 1 | -1): void {
    let session = this.sessions.get(row.sessionId);
    if (session === undefined) {
      session = emptyTally();
      this.sessions.set(row.sessionId, session);
    }
    add(this.all, row, by);
    add(session, row, by);
    if (session.total === 0) this.sessions.delete(row.sessionId);
  }

  private setFailing(row: TaskRow, failing: boolean): void {
    const by = failing ? 1 : -1;
    if (failing) this.failing.add(row.record.id);
    else this.failing.delete(row.record.id);
    this.all.failing += by;
    const session = this.sessions.get(row.sessionId);
    if (session !== undefined) session.failing += by;
  }
}

function add(tally: Tally, row: TaskRow, by: 1 | -1): void {
  tally.total += by;
  if (row.status !== 'active') tally.ended += by;
  else if (row.pausedAt !== undefined) tally.paused += by;
}

const finish = (tally: Tally, overdue: number, scheduled: number): StateCounts => ({
  scheduled,
  overdue,
  paused: tally.paused,
  failing: tally.failing,
  ended: tally.ended,
  total: tally.total,
});
