// The service's one timer (docs/delivery.md) and its due index. Active tasks wait in a priority
// queue keyed by when they are next due: a committed row's due instant, or the wake its task actor
// reported (`task.wake`, taskMachine.ts) — its due instant, or its next retry after a failed
// delivery. The timer is armed for the earliest key, each wait at most `maxWaitMs` (never above
// 2^31 − 1 ms); every wake rereads the wall clock and hands out only what is keyed by then, so a
// clock that moved backwards never fires anything early and one that jumped forwards catches up at
// once. Whether a handed-out task is due is its actor's decision: its key is the instant its
// actor finds it due, and a parked or overdue task that a tick does not find due (the clock stepped
// back) reports its wake again. A task whose actor reported itself `parked` (retry off, or a
// message id that cannot be recorded) is indexed without a time: only an unrelated wake (another
// task due, a committed create, update or delete) or a restart tries it again. The retry state
// itself — attempts, the backoff, the next retry — lives in the task actor; this index keeps only
// the latest wake each actor reported, and a task's failure status is the one that wake carries.
// The failure status is then written with the row (the failure write), so a restart restores it;
// a restored task is tried again at once when it is due.
//
// A wake hands its due tasks to their Sessions in turns: the Sessions in the order their earliest
// task is taken (earliest due first), each with all of its due tasks (one attempt, one batch
// message), at most `HAND_OUT_TASKS` tasks a turn but at least one Session. The wake only marks
// what is keyed by its `now` as to be taken; each turn takes from the queue as it goes — the
// earliest due task, then the other tasks of its Session keyed by `now` (found among the
// Session's active rows, so a Session's tasks due at several instants still go together) and its
// parked ones — until the turn is full, so a burst's first Sessions go out before the rest of it
// is even read. The first turn runs in the wake; the event loop turns between the others, so the
// first Sessions' attempts resolve, append and flush while the rest of a burst waits in the queue.
// A turn rereads the clock and takes only what is keyed by the earlier of it and the wake's
// `now`: after a step back nothing goes out early. A Session whose active rows would take the
// turn past `SCAN_ROWS` rows read makes it take the rest of the wake at once, each due task's own
// row read (the cost of taking stays bounded by the due tasks, however many tasks a Session
// has). Parked tasks a wake takes go with their Session's due tasks, the others once the queue
// has no more due. While taking, the timer is armed only for activations: the turn that takes
// the last due task rearms it; a later wake (a kick, an activation) rereads the clock for the
// tasks still to take, which follow the Sessions already waiting. While any wait the service is
// not idle; draining hands out the rest at once, and stopping drops them (their rows stay due).
//
// A task whose Session flushed its reminder but whose row write failed has a receipt waiting for
// its write: its actor holds it and reports it with its wake (taskMachine.ts), keyed at the retry
// it reported. When that comes the write is retried, built from the receipts the wakes carry
// (pendingReceipts.ts) — the task is not handed to its Session, whatever its target. The only mark
// this index adds is that a receipt's write is under way (sent, and neither failed nor reported
// by its actor as recorded), so it is sent once. Any successful write retries the waiting receipts at once (the
// storage works again); an edit of the task keeps the receipt waiting; deleting or ending the task
// drops it.
//
// Passivation: with a horizon set (`passivationHorizonMs`), an active task first tracked while its
// due instant lies beyond now + horizon — or that has none (paused, not run now) — is passivated:
// it is kept only as its row, without a task actor. Passivated tasks wait in a second queue keyed
// by their activation time, due − horizon (those without a due instant in a set); the same timer
// wakes for the earlier of both queues, and a wake first activates every passivated task whose
// activation time has come — it joins the due queue at its due instant and its row is handed out
// to be spawned, as a restored task is — and only then takes the due tasks, so a clock that jumps
// far ahead activates a task and delivers it in the same wake. A committed change that brings a
// passivated task within the horizon activates it at once; a live task stays live whatever its
// row becomes, until it is deleted or ends. An open is the one exception to "within the horizon is
// live": a restored task gets its actor a minute (`RESTORE_LEAD_MS`) before it falls due, so a
// restart spawns what its first minute needs and is ready sooner; the others follow as they come.

import type { DueTasks, FailureCause, FlushedAttempt, TaskWake, WaitingReceipt } from '../../machines/events.ts';
import type { DeliveryFailure, FailureStage, TaskRow } from '../domain/tasks/types.ts';
import { dueAtMs } from '../domain/time/due.ts';
import { retriedWrites } from '../planning/pendingReceipts.ts';
import type { Clock, Logger } from '../ports.ts';
import type { ResolvedConfig } from './config.ts';
import { DueQueue } from './dueQueue.ts';

/**
 * How far ahead of its due instant a restored task gets its actor when the horizon is longer: an
 * open spawns the actors of its first minute, not of its whole horizon, and is ready sooner.
 */
export const RESTORE_LEAD_MS = 60_000;

/** The most due tasks one turn hands to their Sessions (a Session's due tasks are never split). */
export const HAND_OUT_TASKS = 256;

/**
 * The most active rows one turn reads to find the other due tasks of the Sessions it takes: a
 * Session with more makes the turn take the rest of the wake at once, by reading the due tasks'
 * own rows.
 */
export const SCAN_ROWS = 8 * HAND_OUT_TASKS;

/** Due tasks of one Session waiting for their turn, with the wall clock of the wake that took them. */
interface WaitingDue {
  readonly now: number;
  readonly due: DueTasks;
}

export interface SchedulerOptions {
  readonly clock: Clock;
  readonly config: ResolvedConfig;
  /** The Session a task belongs to (undefined once it is gone). */
  readonly sessionOf: (id: string) => string | undefined;
  /** Receives one warning per failed stage of an attempt. */
  readonly logger: Logger;
  /** Receives the due tasks of one turn of a wake (scheduler.ts), grouped by Session, with the wake's `now`. */
  readonly onDue: (now: number, due: DueTasks[]) => void;
  /** Receives waiting receipts to write again: one outcome per Session, to commit like a flushed attempt's. */
  readonly onCommitDue: (flushed: readonly FlushedAttempt[]) => void;
  /** The committed row of a task (undefined once it is gone). */
  readonly rowOf: (id: string) => TaskRow | undefined;
  /** How many active tasks a Session has. */
  readonly activeCountOf: (sessionId: string) => number;
  /** The active rows of a Session: a wake taken turn by turn finds a Session's other due tasks among them. */
  readonly activeRowsOf: (sessionId: string) => readonly TaskRow[];
  /** Receives the rows of passivated tasks whose activation time has come, to spawn their actors. */
  readonly onActivate: (rows: readonly TaskRow[]) => void;
  /** Hears of each task whose actor took a failure (the counts per state keep it as failing). */
  readonly onFailing?: (id: string) => void;
  /** The time set by `readRestAt` has come: the rows left in storage that fall due soon are to be read. */
  readonly onReadDue?: (now: number) => void;
  /** Hears of each failed attempt that left tasks retrying or parked: its stage and how many (the metrics). */
  readonly onAttemptFailed?: (stage: FailureStage, reminders: number) => void;
}

export class Scheduler {
  private readonly queue = new DueQueue();
  /** The latest wake each task actor reported (those that reported one), until the task is deleted or ends. */
  private readonly wakes = new Map<string, TaskWake>();
  /** The tasks whose reported wake is `parked` and that no wake has handed out since: taken by the next unrelated wake. */
  private readonly parked = new Set<string>();
  /** The tasks whose latest wake carries a receipt waiting for its write (the receipts are the wakes'). */
  private readonly receipts = new Set<string>();
  /**
   * The tasks whose receipt was sent to be written and is not settled: until the write fails or
   * finds nothing to write, or the actor reports a wake without it (the write recorded it).
   */
  private readonly writing = new Set<string>();
  private recoverPending = false;
  private timer: unknown = null;
  private armedFor: number | null = null;
  private stopped = false;
  private kickPending = false;
  /** Active tasks with a live actor (kept only while passivation is on). */
  private readonly live = new Set<string>();
  /** Passivated tasks without a due instant (paused, not run now). */
  private readonly dormant = new Set<string>();
  /**
   * Passivated tasks with a due instant, keyed by when they are activated (due − horizon, or
   * due − {@link RESTORE_LEAD_MS} for one restored within the horizon). They
   * join the due queue when activated: a passivated task is never attempted, so its due key would
   * only ever be its due instant.
   */
  private readonly activations = new DueQueue();
  /** Due Sessions taken by a wake and not handed out yet, in order; those before `nextWaiting` are handed out. */
  private waiting: WaitingDue[] = [];
  private nextWaiting = 0;
  /**
   * The wall clock of the latest wake while due tasks keyed by then are still being taken from
   * the queue, a Session at a time, turn by turn (null when none are).
   */
  private taking: number | null = null;
  /**
   * Parked tasks a wake took and no turn has handed out yet: each goes with its Session's due
   * tasks, or, once the queue has no more, with the other parked ones of its Session. None of
   * them is in the queue or in `parked`.
   */
  private readonly parkedTaken = new Set<string>();
  /** When the rows left in storage are next read by due time (`readRestAt`), or null. */
  private readAt: number | null = null;
  /** The event loop's turn that hands out the next Sessions (while some wait). */
  private turn: ReturnType<typeof setImmediate> | null = null;

  constructor(private readonly options: SchedulerOptions) {}

  /**
   * An active row was committed: it is keyed at its due instant (an edit makes its actor forget
   * the backoff; a failing one reports that wake too) — unless its receipt is still waiting to be
   * written (an edit landed meanwhile): then the write's retry keeps its time.
   */
  track(row: TaskRow): void {
    const id = row.record.id;
    const due = dueAtMs(row);
    if (this.place(id, due)) {
      this.queue.delete(id);
      return;
    }
    if (this.receipts.has(id)) return;
    this.parked.delete(id);
    this.parkedTaken.delete(id);
    if (due === undefined) this.queue.delete(id);
    else this.queue.set(id, due);
  }

  /**
   * The rows of a freshly opened domain, none of them known yet (inactive ones are skipped): each
   * active row is queued at its due instant and placed live or passivated, with each queue built
   * once. Answers the active rows that get a task actor now, in the order given: every one without
   * a horizon, else those due within {@link RESTORE_LEAD_MS} (or the horizon, when shorter). The
   * others due within the horizon are activated that lead before they fall due, so an open spawns
   * only the actors its first minute needs and the rest follow as their turn comes.
   */
  trackRestored(rows: Iterable<TaskRow>): TaskRow[] {
    const horizon = this.options.config.passivationHorizonMs;
    const lead = horizon === null ? 0 : Math.min(horizon, RESTORE_LEAD_MS);
    const now = this.options.clock.now();
    const queue = this.queue;
    const spawned: TaskRow[] = [];
    for (const row of rows) {
      if (row.status !== 'active') continue;
      const id = row.record.id;
      const due = dueAtMs(row);
      if (horizon === null) {
        if (due !== undefined) queue.append(id, due);
        spawned.push(row);
      } else if (due === undefined) this.dormant.add(id);
      else if (due - horizon > now) this.activations.append(id, due - horizon);
      else if (due - lead > now) this.activations.append(id, due - lead);
      else {
        this.live.add(id);
        queue.append(id, due);
        spawned.push(row);
      }
    }
    queue.heapify();
    this.activations.heapify();
    return spawned;
  }

  /**
   * Decides whether a committed active row has a live actor, and answers true when it is (still)
   * passivated. A live task stays live; a passivated one, or one seen for the first time, is live
   * when it falls due within the horizon.
   */
  private place(id: string, due: number | undefined): boolean {
    const horizon = this.options.config.passivationHorizonMs;
    if (horizon === null || this.live.has(id)) return false;
    if (due !== undefined && due - horizon <= this.options.clock.now()) {
      this.dormant.delete(id);
      this.activations.delete(id);
      this.live.add(id);
      return false;
    }
    if (due === undefined) {
      this.activations.delete(id);
      this.dormant.add(id);
    } else {
      this.dormant.delete(id);
      this.activations.set(id, due - horizon);
    }
    return true;
  }

  /**
   * Rows read from storage after the open, none of them known yet: each active one is placed as
   * a committed row is, and those due within the horizon are handed out to be spawned at once.
   */
  trackRead(rows: readonly TaskRow[]): void {
    const spawned: TaskRow[] = [];
    for (const row of rows) {
      if (row.status !== 'active') continue;
      const id = row.record.id;
      const due = dueAtMs(row);
      if (this.place(id, due)) continue;
      if (due !== undefined) this.queue.set(id, due);
      spawned.push(row);
    }
    if (spawned.length > 0) this.options.onActivate(spawned);
    this.rearm();
  }

  /**
   * The rows left in storage are next read by due time at `at` (epoch ms; null: never): the timer,
   * at its next arming, wakes for it as for a due task, and the wake asks for the read
   * (`onReadDue`) first.
   */
  readRestAt(at: number | null): void {
    this.readAt = at;
  }

  /** True when the active task is kept only as its row (no actor). */
  isPassive(id: string): boolean {
    return this.activations.has(id) || this.dormant.has(id);
  }

  /** The ids of the passivated tasks. */
  *passivated(): Generator<string> {
    yield* this.activations.ids();
    yield* this.dormant;
  }

  /** How many active tasks are passivated. */
  get passiveCount(): number {
    return this.activations.size + this.dormant.size;
  }

  /** The row was deleted or ended (a receipt still waiting for it is dropped). */
  untrack(id: string): void {
    this.receipts.delete(id);
    this.writing.delete(id);
    this.parked.delete(id);
    this.parkedTaken.delete(id);
    this.wakes.delete(id);
    this.queue.delete(id);
    this.live.delete(id);
    this.dormant.delete(id);
    this.activations.delete(id);
  }

  /**
   * A task actor reported its wake: the task is keyed at it, or indexed as parked. A task deleted
   * or ended meanwhile (its row is gone or inactive) is not kept. A wake without a receipt ends a
   * write of one under way (the write recorded it); one with a receipt keeps the mark, so a receipt
   * whose write is under way is not sent again.
   */
  reported(wake: TaskWake): void {
    const id = wake.id;
    if (this.options.rowOf(id)?.status !== 'active') {
      this.wakes.delete(id);
      this.receipts.delete(id);
      this.writing.delete(id);
      return;
    }
    this.wakes.set(id, wake);
    if (wake.receipt === undefined) {
      this.receipts.delete(id);
      this.writing.delete(id);
    } else this.receipts.add(id);
    this.parkedTaken.delete(id);
    if (wake.waits === 'parked') {
      this.queue.delete(id);
      this.parked.add(id);
      return;
    }
    this.parked.delete(id);
    if (wake.at === undefined) this.queue.delete(id);
    else this.queue.set(id, wake.at);
  }

  /**
   * These failures reached the task actors, which reported their wakes as they took them: each
   * task left retrying or parked counts as failing, and each cause is logged once. Answers how
   * many failed attempts were logged.
   */
  failed(causes: readonly FailureCause[]): number {
    let logged = 0;
    for (const cause of causes) {
      const ids: string[] = [];
      let latest: DeliveryFailure | undefined;
      for (const id of cause.ids) {
        const wake = this.wakes.get(id);
        if (wake === undefined || wake.waits === 'due') continue;
        this.options.onFailing?.(id);
        ids.push(id);
        latest ??= wake.failure;
      }
      if (ids.length > 0) this.options.onAttemptFailed?.(cause.stage, ids.length);
      if (cause.park === true || ids.length === 0) continue;
      this.options.logger.warn('A delivery attempt failed; the reminders stay active.', {
        sessionId: this.options.sessionOf(ids[0] ?? ''),
        taskIds: ids,
        stage: cause.stage,
        attempt: latest?.attempts ?? 1,
        nextRetryAt: latest?.nextRetryAt ?? null,
        cause: cause.error ?? cause.message,
      });
      logged++;
    }
    return logged;
  }

  /**
   * A task's failure status: the one its actor last reported, else its stored row's (an actor
   * starts with its row's; a passivated task has none).
   */
  failureOf(id: string): DeliveryFailure | undefined {
    const wake = this.wakes.get(id);
    return wake === undefined ? this.options.rowOf(id)?.failure : wake.failure;
  }

  /** The receipt waiting for its write that the task's actor last reported, if any. */
  receiptOf(id: string): WaitingReceipt | undefined {
    return this.receipts.has(id) ? this.wakes.get(id)?.receipt : undefined;
  }

  /**
   * The write of these tasks' receipts failed, or there was nothing left to write: their write is
   * no longer under way. A failed one waits for its task's retry (its actor took the failure and
   * reports it); its task is not delivered meanwhile.
   */
  receiptsUnwritten(ids: readonly string[]): void {
    for (const id of ids) this.writing.delete(id);
  }

  /** A write succeeded: receipts waiting for a retry are written again at once. */
  recover(): void {
    if (this.recoverPending || this.stopped || !this.hasWaitingReceipt()) return;
    this.recoverPending = true;
    queueMicrotask(() => {
      this.recoverPending = false;
      if (!this.stopped) this.handOutCommits(this.receipts, this.options.clock.now());
    });
  }

  /** Hands every waiting receipt out for one last write (the service is closing; the timer is stopped). */
  drainReceipts(): void {
    this.handOutCommits(this.receipts, this.options.clock.now());
  }

  /**
   * Retry now: a receipt of these tasks waiting for its write is written again at once. The other
   * tasks' actors forget the backoff and report their wake (due, they are handed out at the next wake).
   */
  retryNow(ids: readonly string[]): void {
    const commits = ids.filter((id) => this.receipts.has(id));
    if (commits.length > 0) this.handOutCommits(commits, this.options.clock.now());
  }

  /** True when some receipt waits for its write and none is under way for it. */
  private hasWaitingReceipt(): boolean {
    if (this.receipts.size > this.writing.size) return true;
    for (const id of this.receipts) if (!this.writing.has(id)) return true;
    return false;
  }

  /** A committed create, update or delete: parked tasks get another try. */
  kick(): void {
    if (this.parked.size === 0 || this.kickPending || this.stopped) return;
    this.kickPending = true;
    queueMicrotask(() => {
      this.kickPending = false;
      if (!this.stopped) this.wake(true);
    });
  }

  /** True while a wake queued for the end of this turn (a kick, a receipts' recovery) has not run. */
  get wakeQueued(): boolean {
    return this.kickPending || this.recoverPending;
  }

  /** True while due Sessions of a wake wait for their turn to be taken or handed out. */
  get handingOut(): boolean {
    return this.taking !== null || this.nextWaiting < this.waiting.length;
  }

  /** Hands every due Session still waiting for its turn out at once (the service is closing). */
  handOutWaiting(): void {
    while (this.handingOut) this.handOutTurn(Number.POSITIVE_INFINITY);
  }

  /**
   * Arms the timer for the earliest due task (or cancels it when nothing is queued). While a
   * wake's due tasks are being taken turn by turn, only the activation queue arms it: the due
   * queue's earliest keys are those being taken, and the turn that takes the last of them rearms.
   */
  rearm(): void {
    if (this.stopped) return;
    const due = this.taking === null ? this.queue.peek() : undefined;
    const activation = this.activations.peek();
    const queued = due === undefined ? activation : activation === undefined ? due : Math.min(due, activation);
    const read = this.readAt ?? undefined;
    const earliest = queued === undefined ? read : read === undefined ? queued : Math.min(queued, read);
    if (earliest === undefined) {
      this.cancel();
      return;
    }
    if (this.timer !== null && this.armedFor === earliest) return;
    this.cancel();
    const { clock, config } = this.options;
    const wait = Math.max(0, Math.min(earliest - clock.now(), config.maxWaitMs));
    this.armedFor = earliest;
    this.timer = clock.setTimeout(() => this.onTimer(), wait);
  }

  /** Cancels the timer for good (the service is closing); due Sessions still waiting for their turn are dropped. */
  stop(): void {
    this.stopped = true;
    this.cancel();
    this.waiting = [];
    this.nextWaiting = 0;
    this.taking = null;
    this.parkedTaken.clear();
    if (this.turn !== null) clearImmediate(this.turn);
    this.turn = null;
  }

  private cancel(): void {
    if (this.timer !== null) this.options.clock.clearTimeout(this.timer);
    this.timer = null;
    this.armedFor = null;
  }

  private onTimer(): void {
    this.timer = null;
    this.armedFor = null;
    if (!this.stopped) this.wake(false);
  }

  /**
   * Hands the tasks keyed by now — and, on any wake that finds some or is kicked, the parked ones
   * — to their Sessions, whose task actors decide whether each is due: a parked or overdue one
   * that is not (the clock stepped back) reports its wake again, so no active task leaves the
   * queue for good without being delivered. The wake only marks them to be taken: the first turn
   * (in the wake, unless turns are already under way) and the turns after it take them from the
   * queue a Session at a time.
   */
  private wake(kicked: boolean): void {
    const now = this.options.clock.now();
    if (this.readAt !== null && this.readAt <= now) {
      this.readAt = null;
      this.options.onReadDue?.(now);
    }
    this.activate(this.activations.takeDue(now));
    const due = (this.queue.peek() ?? Number.POSITIVE_INFINITY) <= now;
    if ((due || kicked) && this.parked.size > 0) {
      for (const id of this.parked) this.parkedTaken.add(id);
      this.parked.clear();
    }
    const idle = !this.handingOut;
    if (this.taking !== null || due || this.parkedTaken.size > 0) this.taking = now;
    if (idle && this.taking !== null) this.handOutTurn(HAND_OUT_TASKS);
    this.rearm();
  }

  /**
   * Hands the next due Sessions out — those waiting first, then Sessions taken from the queue
   * until the turn is full: at most `limit` tasks, at least one Session; those of one wake in one
   * `onDue` — and, when more wait, asks the event loop for the next turn first.
   */
  private handOutTurn(limit: number): void {
    // The clock is read again: one that stepped back since the wake takes only what is keyed by now.
    if (this.taking !== null) this.taking = Math.min(this.taking, this.options.clock.now());
    const now = this.taking;
    const turns: Array<{ now: number; due: DueTasks[] }> = [];
    const commits: string[] = [];
    let tasks = 0;
    let scanned = 0;
    for (;;) {
      const next = this.waiting[this.nextWaiting];
      if (next === undefined) {
        if (this.taking === null || tasks >= limit) break;
        scanned += this.takeSession(this.taking, SCAN_ROWS - scanned, commits);
        continue;
      }
      if (tasks > 0 && tasks + next.due.ids.length > limit) break;
      this.nextWaiting++;
      const last = turns[turns.length - 1];
      if (last !== undefined && last.now === next.now) last.due.push(next.due);
      else turns.push({ now: next.now, due: [next.due] });
      tasks += next.due.ids.length;
    }
    const waiting = this.waiting;
    if (this.nextWaiting === waiting.length) {
      this.waiting = [];
      this.nextWaiting = 0;
    } else if (this.nextWaiting > waiting.length / 2) {
      // The handed-out Sessions are let go once they are most of the list, so wakes that keep
      // coming while some still wait do not grow it.
      this.waiting = waiting.slice(this.nextWaiting);
      this.nextWaiting = 0;
    }
    if (this.handingOut) this.turn ??= setImmediate(this.onTurn);
    if (commits.length > 0) this.handOutCommits(commits, now as number);
    for (const turn of turns) this.options.onDue(turn.now, turn.due);
    // The due queue's timer waited while its due tasks were being taken.
    if (now !== null && this.taking === null) this.rearm();
  }

  /**
   * Takes the earliest task keyed by `now` from the queue, with every other due task of its
   * Session — those of its active rows keyed by `now`, and its parked ones taken — as one waiting
   * Session; a task whose receipt waits for its write goes to `commits` instead. When the queue
   * holds no task keyed by `now`, or the Session has more active rows than `budget`, the rest of
   * the wake is taken at once (`takeRest`). Answers how many rows were read for the Session.
   */
  private takeSession(now: number, budget: number, commits: string[]): number {
    const { queue, receipts, parkedTaken, options } = this;
    for (;;) {
      const id = queue.takeNext(now);
      if (id === undefined) {
        this.takeRest(now, [], commits);
        return 0;
      }
      if (receipts.has(id)) {
        commits.push(id);
        continue;
      }
      const row = options.rowOf(id);
      if (row === undefined || row.status !== 'active') continue;
      const sessionId = row.sessionId;
      const count = options.activeCountOf(sessionId);
      if (count > budget) {
        this.takeRest(now, [id], commits);
        return 0;
      }
      const ids = [id];
      for (const other of options.activeRowsOf(sessionId)) {
        const otherId = other.record.id;
        if (otherId === id) continue;
        const at = queue.dueAt(otherId);
        if (at !== undefined && at <= now) queue.delete(otherId);
        else if (!parkedTaken.delete(otherId)) continue;
        if (receipts.has(otherId)) commits.push(otherId);
        else ids.push(otherId);
      }
      this.waiting.push({ now, due: { sessionId, ids } });
      return count;
    }
  }

  /**
   * Takes every task still keyed by `now` (after `first`, already taken) and every parked one
   * taken, and queues them by Session in the order taken, each row read once for its Session:
   * the wake's taking ends.
   */
  private takeRest(now: number, first: string[], commits: string[]): void {
    const taken = first;
    for (const id of this.queue.takeDue(now)) taken.push(id);
    for (const id of this.parkedTaken) taken.push(id);
    this.parkedTaken.clear();
    this.taking = null;
    const bySession = new Map<string, string[]>();
    for (const id of taken) {
      if (this.receipts.has(id)) {
        commits.push(id);
        continue;
      }
      const row = this.options.rowOf(id);
      if (row === undefined || row.status !== 'active') continue;
      const ids = bySession.get(row.sessionId);
      if (ids === undefined) bySession.set(row.sessionId, [id]);
      else ids.push(id);
    }
    for (const [sessionId, ids] of bySession) this.waiting.push({ now, due: { sessionId, ids } });
  }

  private readonly onTurn = (): void => {
    this.turn = null;
    if (!this.stopped && this.handingOut) this.handOutTurn(HAND_OUT_TASKS);
  };

  /**
   * Moves passivated tasks (taken from the activation queue) to live: each joins the due queue at
   * its due instant, and their rows are handed out to be spawned — before the due tasks of the
   * same wake are taken, so a task activated and due at once gets its actor first.
   */
  private activate(ids: readonly string[]): void {
    if (ids.length === 0) return;
    const rows: TaskRow[] = [];
    for (const id of ids) {
      const row = this.options.rowOf(id);
      const due = row === undefined || row.status !== 'active' ? undefined : dueAtMs(row);
      if (row === undefined || due === undefined) continue;
      this.live.add(id);
      this.queue.set(id, due);
      rows.push(row);
    }
    if (rows.length > 0) this.options.onActivate(rows);
  }

  /**
   * Sends the waiting receipts of `ids` — as their tasks' wakes carry them, none whose write is
   * under way — to be written again, one outcome per Session, and marks their writes under way.
   */
  private handOutCommits(ids: Iterable<string>, now: number): void {
    const taken: WaitingReceipt[] = [];
    for (const id of ids) {
      this.queue.delete(id);
      this.parked.delete(id);
      const receipt = this.writing.has(id) ? undefined : this.receiptOf(id);
      if (receipt === undefined) continue;
      this.writing.add(id);
      taken.push(receipt);
    }
    if (taken.length > 0) this.options.onCommitDue(retriedWrites(taken, now));
  }
}
