// The in-memory mirror of the committed domain: every row by id, the active rows of each Session,
// the id counter and the remembered calls of idempotent requests. It changes only by applying a batch that storage has acknowledged, so it is
// always what `schedule.json` holds. A task actor starts from the very row object; after a
// committed change its context is a new object whose members are the committed row's own (the
// record and the saved history are shared, not copied).

import type { ScheduleCounts, StateCounts } from '../domain/reads/stateCounts.ts';
import { type CallRef, callKey, type RememberedCall } from '../domain/tasks/rememberedCalls.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { TaskRows } from '../planning/taskRows.ts';
import type { CommitBatch, StoredDomain, UnreadCounts } from '../ports.ts';
import { RowIndex } from './rowIndex.ts';
import { StateTally } from './stateTally.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Takes a row that joined the table out of the count of rows left in storage. */
function uncount(unread: Mutable<UnreadCounts>, row: TaskRow): void {
  unread.total--;
  if (row.status !== 'active') unread.ended--;
  else {
    if (row.pausedAt !== undefined) unread.paused--;
    if (row.failure !== undefined) unread.failing--;
  }
}

/**
 * The counts of the rows held with those left in storage added: these are all due beyond the
 * rows read by due time, so each active unpaused one is scheduled.
 */
function withUnread(held: StateCounts, unread: UnreadCounts | undefined): StateCounts {
  if (unread === undefined) return held;
  return {
    scheduled: held.scheduled + unread.total - unread.ended - unread.paused,
    overdue: held.overdue,
    paused: held.paused + unread.paused,
    failing: held.failing + unread.failing,
    ended: held.ended + unread.ended,
    total: held.total + unread.total,
  };
}

/** Task ids are `sch_<n>`, n from the persisted counter; they are never reused. */
export const taskIdFor = (n: number): string => `sch_${n}`;

/** The most task numbers taken from storage at a time, when storage hands them out. */
export const TASK_NUMBER_BLOCK = 64;

export class TaskTable implements TaskRows {
  private readonly rows = new RowIndex();
  private readonly activeBySession = new Map<string, Set<string>>();
  private counter: number;
  /** Task numbers storage allocated and no id uses yet. */
  private readonly allocated: number[] = [];
  private lastBlock = 0;
  /** The time-zone data version the domain records (what storage holds), if any. */
  tzdata: string | undefined;
  /** Remembered calls by `callKey`, oldest first. */
  private readonly calls = new Map<string, RememberedCall>();
  /** The counts per state, kept as rows are put and removed. */
  private tally = new StateTally();
  /** Reads of stored rows under way (`beginRead`). */
  private reads = 0;
  /** Ids removed while a read of stored rows was under way: that read found them before their removal. */
  private removedDuringReads: Set<string> | null = null;
  /** The rows left in storage, counted (`countUnread`); undefined until they are. */
  private unread: Mutable<UnreadCounts> | undefined;
  /** Rows added while a count of the stored rows was under way (it counted them as unread). */
  private addedDuringCount: TaskRow[] | null = null;

  constructor(domain: StoredDomain) {
    this.counter = domain.nextTaskNumber;
    this.tzdata = domain.tzdata;
    for (const call of domain.calls ?? []) this.calls.set(callKey(call), call);
    if (this.load(domain.tasks)) {
      for (const row of domain.tasks) this.tally.load(row);
      this.tally.loaded();
    } else {
      this.rows.clear();
      this.activeBySession.clear();
      this.tally = new StateTally();
      for (const row of domain.tasks) this.put(row);
    }
  }

  /**
   * Indexes the rows of a freshly opened domain, each id set once; false (the table then half
   * built) when an id repeats, so the caller indexes them again row by row, a later row replacing
   * an earlier one.
   */
  private load(tasks: readonly TaskRow[]): boolean {
    const rows = this.rows;
    // Each Session's ids are gathered first and made a set at the end: one set built at a time
    // stays in the cache, where adding to a thousand growing sets in turn would not.
    const bySession = new Map<string, string[]>();
    let ids: string[] | undefined;
    let session: string | undefined;
    for (let i = 0; i < tasks.length; i++) {
      const row = tasks[i] as TaskRow;
      rows.set(row);
      if (rows.size !== i + 1) return false;
      if (row.status !== 'active') continue;
      const sessionId = row.sessionId;
      if (sessionId !== session || ids === undefined) {
        ids = bySession.get(sessionId);
        if (ids === undefined) {
          ids = [];
          bySession.set(sessionId, ids);
        }
        session = sessionId;
      }
      ids.push(row.record.id);
    }
    for (const [sessionId, list] of bySession) this.activeBySession.set(sessionId, new Set(list));
    return true;
  }

  /** The row with this id, active or inactive. */
  get(id: string): TaskRow | undefined {
    return this.rows.get(id);
  }

  /** The row with this id if it belongs to `sessionId`. */
  getInSession(sessionId: string, id: string): TaskRow | undefined {
    const row = this.rows.get(id);
    return row !== undefined && row.sessionId === sessionId ? row : undefined;
  }

  /** Active rows of a Session, in id order. */
  activeRows(sessionId: string): TaskRow[] {
    const ids = this.activeBySession.get(sessionId);
    if (ids === undefined) return [];
    const out: TaskRow[] = [];
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row !== undefined) out.push(row);
    }
    return out;
  }

  /** How many active rows the Session has. */
  activeCount(sessionId: string): number {
    return this.activeBySession.get(sessionId)?.size ?? 0;
  }

  /**
   * The counts per state at `now` of the whole schedule, and of `sessionId` when given (that
   * Session's active rows are scanned for its overdue ones; the rest is kept as rows change).
   */
  counts(now: number, sessionId?: string): ScheduleCounts {
    const all = withUnread(this.tally.counts(now), this.unread);
    if (sessionId === undefined) return { all };
    return { all, session: this.tally.sessionCounts(sessionId, now, this.activeRows(sessionId)) };
  }

  /** The task's actor took a failure: its row counts as failing until a delivery of it is committed. */
  noteFailing(id: string): void {
    const row = this.rows.get(id);
    if (row !== undefined) this.tally.noteFailing(row);
  }

  /** Every row, in insertion order. */
  allRows(): IterableIterator<TaskRow> {
    return this.rows.values();
  }

  /** Every active row. */
  *activeRowsAll(): Generator<TaskRow> {
    for (const row of this.rows.values()) if (row.status === 'active') yield row;
  }

  get size(): number {
    return this.rows.size;
  }

  /** The next id counter value (what storage holds). */
  get nextTaskNumber(): number {
    return this.counter;
  }

  /**
   * Hands out the next task id: one of the numbers storage allocated when it allocates them (see
   * `supplyTaskNumbers`; the batch then names no counter), else the next of the local counter.
   * Either moves even if the write that uses the id fails, because a failed write may still have
   * landed: an id is never handed out twice.
   */
  reserveId(): { id: string; nextTaskNumber?: number } {
    const allocated = this.allocated.shift();
    if (allocated !== undefined) return { id: taskIdFor(allocated) };
    const n = this.counter;
    this.counter = n + 1;
    return { id: taskIdFor(n), nextTaskNumber: this.counter };
  }

  /** How many task numbers storage allocated are not handed out yet. */
  get allocatedLeft(): number {
    return this.allocated.length;
  }

  /**
   * How many task numbers to ask storage for next: one at first, twice the last block while
   * creates keep coming, at most `TASK_NUMBER_BLOCK` — so a restart leaves at most a block unused.
   */
  get nextAllocation(): number {
    return Math.min(TASK_NUMBER_BLOCK, this.lastBlock * 2 || 1);
  }

  /** Task numbers storage allocated (unique across every Host on it), handed out before the local counter. */
  supplyTaskNumbers(numbers: readonly number[]): void {
    this.allocated.push(...numbers);
    this.lastBlock = numbers.length;
  }

  rememberedCall(ref: CallRef): RememberedCall | undefined {
    return this.calls.get(callKey(ref));
  }

  rememberedCalls(): IterableIterator<RememberedCall> {
    return this.calls.values();
  }

  /** A read of rows left in storage begins: rows removed until it ends are not brought back by it. */
  beginRead(): void {
    this.reads++;
    this.removedDuringReads ??= new Set();
  }

  /**
   * A read of rows left in storage ends: adds those the table does not hold (a row it holds is
   * as new as the stored one or newer, and a row removed during the read stays removed), and
   * answers the rows added. `rows` is undefined when the read failed.
   */
  endRead(rows: readonly TaskRow[] | undefined): TaskRow[] {
    const added: TaskRow[] = [];
    const removed = this.removedDuringReads;
    for (const row of rows ?? []) {
      const id = row.record.id;
      if (this.rows.get(id) !== undefined || removed?.has(id) === true) continue;
      this.put(row);
      added.push(row);
      if (this.unread !== undefined) uncount(this.unread, row);
      this.addedDuringCount?.push(row);
    }
    this.reads--;
    if (this.reads === 0) this.removedDuringReads = null;
    return added;
  }

  /** Whether the rows left in storage are counted (the counts then include them). */
  get unreadCounted(): boolean {
    return this.unread !== undefined;
  }

  /**
   * Counts the rows left in storage with `count` (which counts the stored rows outside those the
   * table holds when it is called), so that the counts per state include them without reading
   * them; rows read in later leave the count as they join the table.
   */
  async countUnread(count: (held: readonly TaskRow[]) => Promise<UnreadCounts>): Promise<void> {
    this.addedDuringCount = [];
    try {
      const counted: Mutable<UnreadCounts> = { ...(await count([...this.rows.values()])) };
      for (const row of this.addedDuringCount) uncount(counted, row);
      this.unread = counted;
    } finally {
      this.addedDuringCount = null;
    }
  }

  /** Applies a batch storage has acknowledged. */
  apply(batch: CommitBatch): void {
    for (const id of batch.deletes) this.remove(id);
    for (const row of batch.puts) this.put(row);
    if (batch.nextTaskNumber !== undefined && batch.nextTaskNumber > this.counter) this.counter = batch.nextTaskNumber;
    if (batch.tzdata !== undefined) this.tzdata = batch.tzdata;
    for (const ref of batch.forgetCalls ?? []) this.calls.delete(callKey(ref));
    for (const call of batch.calls ?? []) this.calls.set(callKey(call), call);
  }

  private put(row: TaskRow): void {
    const id = row.record.id;
    const previous = this.rows.get(id);
    if (previous !== undefined && previous.sessionId !== row.sessionId) this.unindex(previous);
    this.tally.change(previous, row);
    this.rows.set(row);
    if (row.status === 'active') {
      let ids = this.activeBySession.get(row.sessionId);
      if (ids === undefined) {
        ids = new Set();
        this.activeBySession.set(row.sessionId, ids);
      }
      ids.add(id);
    } else this.unindex(row);
  }

  private remove(id: string): void {
    const row = this.rows.get(id);
    if (row === undefined) return;
    this.tally.change(row, undefined);
    this.rows.delete(id);
    this.removedDuringReads?.add(id);
    this.unindex(row);
  }

  private unindex(row: TaskRow): void {
    const ids = this.activeBySession.get(row.sessionId);
    if (ids === undefined) return;
    ids.delete(row.record.id);
    if (ids.size === 0) this.activeBySession.delete(row.sessionId);
  }
}
