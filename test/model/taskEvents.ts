// The concrete events the task-machine model offers in each state, for model inputs of a one-shot
// and a recurring task. The task machine decides on the times and rows its events carry, so each
// event is built from the snapshot it is offered in, with the domain's own functions: a tick when
// the task falls due (at its target, or at a run-now request that waits), a title edit or a timing
// change (the target moving between two instants, so the model stays finite), a pause, a resume
// and a run-now request (`pauseRow`, `resumeRow`, `triggerRow`), a commit that ends a one-shot or
// advances a recurring task (a run-now delivery keeps a recurring task's target; a request made
// during the attempt stays), a failure at one of two points. Only what the real service can be
// driven to do from a settled state is offered (see `offeredTaskEvents`).
//
// The model's clock is read from the snapshot (`modelClock`): before the target while the task is
// scheduled, at the target once it fell due by it, and never before the pause or run-now request
// the row carries. The instants a pause and a request record are that clock, so a paused row tells
// by its `pausedAt` whether the clock had reached its target — what a resume depends on. An
// attempt that is not a run-now delivery starts at the target, and a request made while it is in
// flight comes a second later (`DURING`), so the commit can tell it from one the attempt answers.
import type { SnapshotFrom } from 'xstate';
import type { WaitingReceipt } from '../../machines/events.ts';
import { nextRetryMs, type TaskEvent, type TaskMachine } from '../../machines/taskMachine.ts';
import { pauseRow, resumeRow, triggerRow } from '../../src/domain/tasks/pause.ts';
import { isRecurringKind, type TaskRow } from '../../src/domain/tasks/types.ts';
import { dueAtMs, isTargetDueAt } from '../../src/domain/time/due.ts';
import { formatInstant, instantMs } from '../../src/domain/time/instant.ts';

type Snap = SnapshotFrom<TaskMachine>;

/**
 * Where a failed attempt fails: the Session's resolve or flush, or the write of the receipt after a
 * successful flush (`write`: the reminder was delivered, its receipt waits for the write's retry).
 */
export type TaskFault = 'resolve' | 'flush' | 'write';
export const TASK_FAULTS: readonly TaskFault[] = ['resolve', 'flush', 'write'];

/** The failure stage a fault is reported at. */
const stageOf = (fault: TaskFault) => (fault === 'write' ? 'commit' : fault);

/**
 * What a model event stands for, read by the driver: besides the steps of an attempt, `receipt`
 * is a waiting receipt's retried write that succeeds and `receipt-fail` one that fails again.
 */
export type TaskStep =
  | 'tick'
  | 'title'
  | 'retime'
  | 'pause'
  | 'resume'
  | 'trigger'
  | 'start'
  | 'commit'
  | 'receipt'
  | 'receipt-fail'
  | TaskFault;

const T1 = Date.parse('2030-01-01T08:10:00.000Z');
const T2 = Date.parse('2030-01-01T09:10:00.000Z');
/** A time before every target: edits and commits happen while the (new) target is ahead. */
const EARLY = T1 - 60_000;
/** How long after its start an attempt takes a run-now request made while it is in flight. */
const DURING = 1000;
/** The service's retry policy in the model's world (false: failed tasks are parked). */
let retryPolicy: { readonly initialMs: number; readonly maxMs: number } | false = false;

/** Sets the retry policy of the world the model's events are made for. */
export function useRetryPolicy(policy: typeof retryPolicy): void {
  retryPolicy = policy;
}

/** The model inputs: a one-shot and a recurring task of Session s1, due at T1. */
export const ONE_SHOT: TaskRow = {
  sessionId: 's1',
  status: 'active',
  record: { id: 'model', kind: 'after', title: 'A', prompt: 'p', scheduledAt: formatInstant(T1), afterSeconds: 600 },
};
export const RECURRING: TaskRow = {
  sessionId: 's1',
  status: 'active',
  record: { id: 'model', kind: 'every', title: 'A', prompt: 'p', scheduledAt: formatInstant(T1), everySeconds: 600 },
};

interface Tags {
  readonly step: TaskStep;
  /** A commit of a run-now delivery (its receipt says `trigger: "manual"`). */
  readonly manual?: boolean;
  /** A tick at a run-now request, not at the target. */
  readonly byRequest?: boolean;
  /** A tick at a failed task's retry time. */
  readonly byRetry?: boolean;
}

/** A model event tagged with the step it stands for (the machine ignores the tags). */
const tagged = (tags: TaskStep | Tags, event: TaskEvent): TaskEvent => {
  const out: TaskEvent & Tags = { ...event, ...(typeof tags === 'string' ? { step: tags } : tags) };
  return out;
};

/** The step a model event stands for. */
export const stepOf = (event: { type: string }): TaskStep | undefined => (event as { step?: TaskStep }).step;

/** True for the commit of a run-now delivery. */
export const isManualCommit = (event: { type: string }): boolean => (event as { manual?: boolean }).manual === true;

/** True for a tick at a failed task's retry time. */
export const isRetryTick = (event: { type: string }): boolean => (event as { byRetry?: boolean }).byRetry === true;

/** True for a tick at a run-now request. */
export const isRequestTick = (event: { type: string }): boolean => (event as { byRequest?: boolean }).byRequest === true;

const withRecord = (row: TaskRow, changes: Partial<TaskRow['record']>): TaskRow => ({
  ...row,
  record: { ...row.record, ...changes } as TaskRow['record'],
});

const targetOf = (row: TaskRow): number => instantMs(row.record.scheduledAt);

/** The latest instant the row records (its pause, its run-now request), or EARLY. */
const latestMark = (row: TaskRow): number =>
  Math.max(EARLY, ...[row.pausedAt, row.triggeredAt].filter((at) => at !== undefined).map(instantMs));

/**
 * The model's clock in a snapshot: at (or after) the target when the task fell due by it — overdue
 * or delivering, not paused, with no run-now request made before its target — else its latest
 * mark (a pause or request made at or after the target keeps the clock there).
 */
export function modelClock(snapshot: Snap): number {
  const row = snapshot.context.row;
  const mark = latestMark(row);
  const running =
    snapshot.matches('overdue') || snapshot.matches('delivering') || snapshot.matches('retrying') || snapshot.matches('parked');
  const dueByTarget = running && row.pausedAt === undefined && (row.triggeredAt === undefined || mark >= targetOf(row));
  return dueByTarget ? Math.max(targetOf(row), mark) : mark;
}

/** The view state the task shows: paused, else scheduled while its target is ahead of the clock. */
export function viewState(snapshot: Snap): 'scheduled' | 'overdue' | 'paused' {
  const row = snapshot.context.row;
  if (row.pausedAt !== undefined) return 'paused';
  return isTargetDueAt(row, modelClock(snapshot)) ? 'overdue' : 'scheduled';
}

/** True when the attempt in flight took a run-now request after its start (a regular attempt starts at the target). */
const requestedDuring = (snapshot: Snap): boolean =>
  snapshot.matches('delivering') &&
  snapshot.context.row.triggeredAt !== undefined &&
  instantMs(snapshot.context.row.triggeredAt) === targetOf(snapshot.context.row) + DURING;

/** True when the attempt in flight is a run-now delivery: requested before it, and not due by its target. */
const runNow = (snapshot: Snap): boolean =>
  snapshot.context.row.triggeredAt !== undefined &&
  !requestedDuring(snapshot) &&
  !isTargetDueAt(snapshot.context.row, modelClock(snapshot));

/**
 * The row a committed delivery writes: a one-shot ends; a recurring task advances, unless run
 * now. It answers the run-now request made before the attempt; one made during it stays.
 */
function committedRow(snapshot: Snap, next: number): TaskRow {
  const { pausedAt, triggeredAt, ...answered } = snapshot.context.row;
  if (!isRecurringKind(answered.record.kind)) return { ...answered, status: 'inactive' };
  const paused: TaskRow = pausedAt === undefined ? answered : { ...answered, pausedAt };
  const kept: TaskRow = triggeredAt !== undefined && requestedDuring(snapshot) ? { ...paused, triggeredAt } : paused;
  return runNow(snapshot) ? kept : withRecord(kept, { scheduledAt: formatInstant(next) });
}

/** The receipt of the reminder `row` was delivered for at `now`, as a failed write of it hands it to the actor. */
const receiptOf = (row: TaskRow, now: number): WaitingReceipt => ({
  sessionId: row.sessionId,
  reminder: {
    id: row.record.id,
    occurrence: targetOf(row),
    messageId: 'model',
    deliveredAt: now,
    prompt: row.record.prompt,
    startedRecord: row.record,
  },
  attemptNow: now,
});

function candidates(snapshot: Snap): TaskEvent[] {
  const row = snapshot.context.row;
  const target = targetOf(row);
  const now = modelClock(snapshot);
  const other = target === T1 ? T2 : T1;
  const titled = withRecord(row, { title: row.record.title === 'A' ? 'B' : 'A' });
  const retimed = withRecord(row, { scheduledAt: formatInstant(other) });
  const events: TaskEvent[] = [
    tagged('start', { type: 'delivery.start' }),
    tagged('title', { type: 'task.updated', row: titled, now }),
    tagged('retime', { type: 'task.updated', row: retimed, now: latestMark(row) }),
    tagged({ step: 'commit', manual: runNow(snapshot) }, { type: 'delivery.committed', row: committedRow(snapshot, other), now: EARLY }),
    ...TASK_FAULTS.map((fault) =>
      tagged(fault, {
        type: 'delivery.failed',
        now,
        failure:
          fault === 'write'
            ? { stage: 'commit', message: fault, retry: retryPolicy, receipt: receiptOf(row, now) }
            : { stage: stageOf(fault), message: fault, retry: retryPolicy },
      }),
    ),
    tagged('receipt', { type: 'delivery.committed', row: committedRow(snapshot, other), now: EARLY }),
    tagged('receipt-fail', {
      type: 'delivery.failed',
      now,
      failure: { stage: 'commit', message: 'commit', retry: retryPolicy, receipt: snapshot.context.receipt ?? receiptOf(row, now) },
    }),
  ];
  // A failed task falls due again at its retry time.
  const retryAt = nextRetryMs(snapshot.context);
  if (snapshot.matches('retrying') && retryAt !== undefined) {
    events.push(tagged({ step: 'tick', byRetry: true }, { type: 'clock.tick', now: retryAt }));
  }
  // A tick comes when the task falls due: at a run-now request that waits, else at the target —
  // only at the two base targets (a target a resume moved on is reached by other steps).
  const due = dueAtMs(row);
  if (due !== undefined && (due !== target || target === T1 || target === T2)) {
    events.push(tagged({ step: 'tick', byRequest: due !== target }, { type: 'clock.tick', now: due }));
  }
  // Pausing a paused task, resuming a running one or asking again for a run now writes nothing.
  const requestAt = snapshot.matches('delivering') ? target + DURING : now;
  const changes: Array<[TaskStep, TaskRow, number]> = [
    ['pause', pauseRow(row, now), now],
    ['resume', resumeRow(row, now), now],
    ['trigger', triggerRow(row, requestAt), requestAt],
  ];
  for (const [step, changed, at] of changes) {
    if (changed !== row) events.push(tagged(step, { type: 'task.updated', row: changed, now: at }));
  }
  return events;
}

/**
 * The events offered in a state: those that take a transition, minus what a settled service
 * cannot do or the model cannot follow:
 * - a timing change during an attempt (the commit then keeps the edit, which the machine's
 *   context cannot tell from an ordinary advance; the user model covers it), and one that moves
 *   the target to or before the task's pause or run-now request (the model's clock would then
 *   seem to have passed a target that is in fact ahead);
 * - a resume during an attempt, and a pause or a run-now request during a run-now delivery or
 *   one that took a request already (whether the attempt is a run-now delivery was decided when
 *   it started, which the context would no longer tell), and one during an attempt of a recurring
 *   task whose next target is not after it (its instant would seem to follow that target);
 * - a failure of a run-now delivery: its retry comes an hour later, past the task's target, which
 *   the model's clock does not follow; and one of an attempt that took a request (the retried
 *   attempt answers it, which the context would not tell from a request made during that one);
 *   and a second failure before a committed delivery clears the first (each failure counts one
 *   more attempt and moves the retry, so the states would never repeat);
 * - a commit or a failure outside an attempt (a retried receipt write, which these events cannot
 *   stand for);
 * A tick that is not due is never offered (the service hands a task to its Session only once it
 * is due).
 */
export function offeredTaskEvents(snapshot: Snap): TaskEvent[] {
  const row = snapshot.context.row;
  const delivering = snapshot.matches('delivering');
  // A receipt waiting for its write: only that write's retry (it succeeds, or fails once more) goes
  // on; an edit meanwhile would be kept by the retried write, which the context cannot follow.
  // With retry off, a task an edit made due after its failure waits for no other reminder (holding
  // the Session would wake it with the parked task): only its start goes on.
  if (retryPolicy === false && snapshot.matches('overdue') && snapshot.context.failure !== undefined) {
    return candidates(snapshot).filter((event) => stepOf(event) === 'start');
  }
  // A parked task goes on only by an edit (a wake would start its delivery at once, and a run-now
  // request would need the Session held, whose reminder's wake takes the parked task with it).
  if (snapshot.matches('parked') && snapshot.context.receipt === undefined) {
    // (A timing change with a run-now request waiting would show the view state the waiting request gives, not the target's.)
    const edits: readonly (TaskStep | undefined)[] = row.triggeredAt === undefined ? ['title', 'retime', 'pause'] : ['title', 'pause'];
    return candidates(snapshot).filter((event) => snapshot.can(event) && edits.includes(stepOf(event)));
  }
  const receiptWaits = !delivering && snapshot.context.receipt !== undefined;
  if (receiptWaits) {
    const again = retryPolicy !== false && (snapshot.context.failure?.attempts ?? 0) < 2;
    return candidates(snapshot).filter(
      (event) => snapshot.can(event) && (stepOf(event) === 'receipt' || (again && stepOf(event) === 'receipt-fail')),
    );
  }
  const next = targetOf(row) === T1 ? T2 : T1;
  /** An attempt's step at `at` that its commit can follow: a one-shot ends, a recurring task's next target is after it. */
  const duringAttempt = (event: TaskEvent): boolean =>
    row.triggeredAt === undefined && (!isRecurringKind(row.record.kind) || ('now' in event && next > event.now));
  const allowed = (event: TaskEvent): boolean => {
    switch (stepOf(event)) {
      case 'retime':
        return !delivering && 'row' in event && targetOf(event.row) > latestMark(row);
      case 'resume':
        return !delivering;
      case 'pause':
      case 'trigger':
        return !delivering || duringAttempt(event);
      case 'resolve':
      case 'flush':
      case 'write':
        return delivering && snapshot.context.failure === undefined && !runNow(snapshot) && !requestedDuring(snapshot);
      case 'commit':
        return delivering;
      case 'receipt':
      case 'receipt-fail':
        return false;
      default:
        return true;
    }
  };
  return candidates(snapshot).filter((event) => snapshot.can(event) && allowed(event));
}
