// The rows an open left in storage (`StoredDomain.rest`), brought into the table when something
// needs them: before a slot whose calls read a Session, that Session's rows; before a call across
// Sessions, every row; and, ahead of time, the active rows about to fall due within the
// passivation horizon — read by due time in windows, the timer waking for each read. Rows read
// join the table and the timer's queues as restored rows do; those already due within the horizon
// get their actors at once. A read the database cannot answer fails the calls that needed it; a
// failed read by due time is tried again shortly.
import type { TaskRow } from '../domain/tasks/types.ts';
import { instantMs } from '../domain/time/instant.ts';
import type { RowsNeeded } from '../planning/readScope.ts';
import type { Clock, HeldRows, Logger, StoredRest } from '../ports.ts';
import type { Scheduler } from './scheduler.ts';
import type { TaskTable } from './taskTable.ts';

/** The least a read by due time looks ahead beyond the horizon, in ms. */
const MIN_LEAD_MS = 60_000;
/** How long after a failed read by due time it is tried again, in ms. */
const RETRY_MS = 5_000;

/** How far ahead of `now` an open, and each read by due time, reads active rows: the horizon and a lead beyond it. */
export const readAheadMs = (horizonMs: number): number => horizonMs + Math.max(horizonMs, MIN_LEAD_MS);

export interface RestReaderDeps {
  readonly rest: StoredRest;
  readonly table: TaskTable;
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly horizonMs: number;
  /** A read by due time ended (`reading` turned false). */
  readonly settled: () => void;
}

export class RestReader {
  /** Every active row due before this instant (epoch ms) is in the table. */
  private readUntil: number;
  /** Sessions whose every row is in the table. */
  private readonly sessions = new Set<string>();
  /** Every row is in the table: nothing is read any more. */
  private allRead = false;
  private dueReading = false;

  /** Whether a read by due time is under way (work no actor shows). */
  get reading(): boolean {
    return this.dueReading;
  }

  constructor(private readonly deps: RestReaderDeps) {
    this.readUntil = deps.rest.readUntil;
    deps.scheduler.readRestAt(this.nextReadAt());
  }

  /** Whether `need` is already in the table. */
  private has(need: RowsNeeded): boolean {
    if (this.allRead) return true;
    if (need === 'all') return false;
    if (need.counts === true && !this.deps.table.unreadCounted) return false;
    return need.sessions.every((sessionId) => this.sessions.has(sessionId));
  }

  /**
   * Brings what `need` reads into the table (a no-op when it is there).
   *
   * @throws ScheduleError the read's error (`persistence_uncertain`, `corrupt_schedule_log`); the table is unchanged.
   */
  async read(need: RowsNeeded): Promise<void> {
    if (this.has(need)) return;
    const { rest } = this.deps;
    if (need === 'all') {
      await this.take(() => rest.all());
      this.allRead = true;
      this.sessions.clear();
      this.deps.scheduler.readRestAt(null);
      return;
    }
    const missing = need.sessions.filter((sessionId) => !this.sessions.has(sessionId));
    if (missing.length > 0) {
      await this.take(() => rest.sessions(missing));
      for (const sessionId of missing) this.sessions.add(sessionId);
    }
    if (need.counts === true && !this.deps.table.unreadCounted) {
      const count = rest.unreadCounts;
      // A storage that cannot count what it holds has every row read instead.
      if (count === undefined) return this.read('all');
      await this.deps.table.countUnread((held) => count.call(rest, this.heldRows(held)));
    }
  }

  /**
   * The rows the table holds, as the storage tells them apart: the active ones due before the
   * rows read by due time reach, every row of the Sessions read, and by id the others.
   */
  private heldRows(held: readonly TaskRow[]): HeldRows {
    const dueBefore = this.readUntil;
    const ids: string[] = [];
    for (const row of held) {
      const covered = (row.status === 'active' && instantMs(row.record.scheduledAt) < dueBefore) || this.sessions.has(row.sessionId);
      if (!covered) ids.push(row.record.id);
    }
    return { dueBefore, sessions: [...this.sessions], ids };
  }

  /** The timer's wake for the next read by due time: reads the next window, in the background. */
  readDue(now: number): void {
    if (this.allRead || this.dueReading) return;
    this.dueReading = true;
    const from = this.readUntil;
    const until = Math.max(from, now + readAheadMs(this.deps.horizonMs));
    this.take(() => this.deps.rest.due(from, until)).then(
      () => {
        this.dueReading = false;
        if (this.allRead) return this.deps.settled();
        this.readUntil = Math.max(this.readUntil, until);
        this.deps.scheduler.readRestAt(this.nextReadAt());
        this.deps.scheduler.rearm();
        this.deps.settled();
      },
      (error: unknown) => {
        this.dueReading = false;
        if (this.allRead) return this.deps.settled();
        this.deps.logger.warn('The stored tasks due soon could not be read; trying again shortly.', { cause: error });
        this.deps.scheduler.readRestAt(this.deps.clock.now() + RETRY_MS);
        this.deps.scheduler.rearm();
        this.deps.settled();
      },
    );
  }

  /** When the next read by due time is to run: once the rows read reach less than the horizon and half the lead ahead. */
  private nextReadAt(): number {
    const ahead = readAheadMs(this.deps.horizonMs);
    return this.readUntil - this.deps.horizonMs - (ahead - this.deps.horizonMs) / 2;
  }

  /** Adds the rows of one read to the table, and to the timer's queues those the table did not hold. */
  private async take(reading: () => Promise<readonly TaskRow[]>): Promise<void> {
    const { table, scheduler } = this.deps;
    table.beginRead();
    let rows: readonly TaskRow[] | undefined;
    try {
      rows = await reading();
    } finally {
      const added = table.endRead(rows);
      if (added.length > 0) scheduler.trackRead(added);
    }
  }
}
