// The lifecycle of one task: `scheduled` until its target passes, `overdue` until its Session
// starts a delivery, `delivering` until the delivery is committed or fails, and `inactive` (final)
// once a one-shot was delivered or a recurring rule has no further target. A paused task waits in
// `paused` (never due, unless it is run now) until a committed resume. A failed delivery leaves the
// task `retrying` until its next retry (the instant is `failure.nextRetryAt` in the context), or
// `parked` when retry is off; an edit or a run now forgets the backoff, a committed delivery the
// failure. The context is the task row — what storage holds, its failure status included — plus
// the backoff step, which only this machine keeps. The failure status is written to storage after
// the actor took it (the slot runner's failure write), so a restored actor starts with the
// failure it had and counts its attempts on; its backoff starts over, and — like every restored
// task — a due one is tried again at once. Time enters only as events carrying `now`: no delayed
// transitions, so a restored actor needs nothing re-armed.
import { setup } from 'xstate';
import { isDueAt } from '../src/domain/due.ts';
import { instantMs } from '../src/domain/instant.ts';
import { type AttemptFailure, afterFailure, type RetryState, withoutRetry } from '../src/domain/retry.ts';
import type { TaskRow } from '../src/domain/types.ts';
import { type ContextPatch, flatMachineLogic, machineGuards, machineUpdates } from './flatLogic.ts';

/**
 * A task actor's context: its committed row — with the failure status of its latest failed
 * attempts, which may be ahead of the stored row's until it is written — and, after a failed
 * delivery, the backoff step.
 */
export type TaskContext = TaskRow & {
  readonly retries?: RetryState['retries'] | undefined;
};

export type TaskEvent =
  /** The timer found the task due (at its target, its retry time, or a run-now request). */
  | { readonly type: 'clock.tick'; readonly now: number }
  /** The Session actor includes this task in a delivery attempt. */
  | { readonly type: 'delivery.start' }
  /** Resolve, append, flush or the receipt's write failed: nothing was recorded. */
  | { readonly type: 'delivery.failed'; readonly now: number; readonly failure: AttemptFailure }
  /** The delivery was committed; `row` is the written row. */
  | { readonly type: 'delivery.committed'; readonly row: TaskRow; readonly now: number }
  /** An update was committed; `row` is the written row. */
  | { readonly type: 'task.updated'; readonly row: TaskRow; readonly now: number }
  /** Retry now: a failed task is tried again at once, its backoff forgotten. */
  | { readonly type: 'delivery.retry'; readonly now: number };

export interface TaskInput {
  readonly row: TaskRow;
}

export { isDueAt };

/**
 * The committed row of an edit as a context update. `assign` merges into the context, and a row
 * can lose the members of a pause (resumed, its note with it) and a run-now request (answered):
 * those are set to undefined when the row has none, every other member only ever changes or
 * appears. The failure status is the actor's own: an edit writes the row's stored one, which may
 * be behind.
 */
const committedRow = (context: TaskContext, row: TaskRow): TaskContext =>
  ({ pausedAt: undefined, pauseNote: undefined, triggeredAt: undefined, ...row, failure: context.failure }) as TaskContext;

/** What a committed edit leaves: the row, and the failure status without its backoff. */
const editedContext = (context: TaskContext, row: TaskRow): ContextPatch<TaskContext> => ({
  ...committedRow(context, row),
  failure: withoutRetry(context.failure),
  retries: undefined,
});

/** The next retry of a failed task (epoch ms), or undefined when none is scheduled (parked). */
export const nextRetryMs = (context: TaskContext): number | undefined =>
  context.failure?.nextRetryAt === undefined ? undefined : instantMs(context.failure.nextRetryAt);

/**
 * The task machine's guards, as plain predicates over the context and the event. The machine's
 * `setup` and its fast logic (`taskLogic`) both run these.
 */
const taskGuards = {
  /** The current target is at or before the event's `now`. */
  isDue: (context: TaskContext, event: TaskEvent) => 'now' in event && isDueAt(context, event.now),
  /** The current target is still ahead of the event's `now`. */
  notDue: (context: TaskContext, event: TaskEvent) => 'now' in event && !isDueAt(context, event.now),
  /** The target is still ahead, and the task is paused. */
  notDueButPaused: (context: TaskContext, event: TaskEvent) =>
    'now' in event && !isDueAt(context, event.now) && context.pausedAt !== undefined,
  /** The row carried by the event is due at the event's `now`. */
  rowIsDue: (_context: TaskContext, event: TaskEvent) => 'row' in event && isDueAt(event.row, event.now),
  /** The row carried by the event has ended. */
  rowEnded: (_context: TaskContext, event: TaskEvent) => 'row' in event && event.row.status === 'inactive',
  /** The task is paused. */
  isPaused: (context: TaskContext) => context.pausedAt !== undefined,
  /** The row carried by the event is paused. */
  rowPaused: (_context: TaskContext, event: TaskEvent) => 'row' in event && event.row.pausedAt !== undefined,
  /** The task is due and its retry time has come by the event's `now`. */
  retryDue: (context: TaskContext, event: TaskEvent) =>
    'now' in event && isDueAt(context, event.now) && event.now >= (nextRetryMs(context) ?? Number.POSITIVE_INFINITY),
  /** The task is due, and the failure is not retried on a timer (retry off, or a message id that cannot be recorded). */
  dueAndParks: (context: TaskContext, event: TaskEvent) =>
    event.type === 'delivery.failed' && event.failure.retry === false && isDueAt(context, event.now),
  /** The failure is not retried on a timer. */
  parks: (_context: TaskContext, event: TaskEvent) => event.type === 'delivery.failed' && event.failure.retry === false,
  /** The task's receipt waits for its write to be retried. */
  receiptWaits: (context: TaskContext) => context.failure?.stage === 'commit',
  /** The Session acknowledged the reminder but its receipt could not be written. */
  receiptFailed: (_context: TaskContext, event: TaskEvent) => event.type === 'delivery.failed' && event.failure.stage === 'commit',
  /** The receipt could not be written, and the failure is not retried on a timer. */
  receiptFailedAndParks: (_context: TaskContext, event: TaskEvent) =>
    event.type === 'delivery.failed' && event.failure.stage === 'commit' && event.failure.retry === false,
};

/** The task machine's actions, as plain updates of the context. */
const taskUpdates = {
  /** Takes the committed row of an edit as the context; the backoff is forgotten. */
  storeRow: (context: TaskContext, event: TaskEvent): ContextPatch<TaskContext> =>
    'row' in event ? editedContext(context, event.row) : {},
  /** Takes the committed row of an edit as the context, keeping the retry state. */
  storeEditedRow: (context: TaskContext, event: TaskEvent): ContextPatch<TaskContext> =>
    'row' in event ? committedRow(context, event.row) : {},
  /** Takes the committed row of a delivery as the context; the failure is cleared. */
  storeDelivered: (_context: TaskContext, event: TaskEvent): ContextPatch<TaskContext> =>
    'row' in event
      ? { pausedAt: undefined, pauseNote: undefined, triggeredAt: undefined, ...event.row, failure: undefined, retries: undefined }
      : {},
  /** Counts one more failed attempt and sets the next retry (none when parked). */
  recordFailure: (context: TaskContext, event: TaskEvent): ContextPatch<TaskContext> =>
    event.type === 'delivery.failed' ? afterFailure(context, event.failure, event.now) : {},
  /** Forgets the backoff: the task is tried again at once. */
  forgetRetry: (context: TaskContext): ContextPatch<TaskContext> => ({ failure: withoutRetry(context.failure), retries: undefined }),
};

/** Where a committed delivery leaves the task: ended, due again, paused or scheduled. */
const afterCommit = [
  { guard: 'rowEnded', target: 'inactive', actions: 'storeDelivered' },
  { guard: 'rowIsDue', target: 'overdue', actions: 'storeDelivered' },
  { guard: 'rowPaused', target: 'paused', actions: 'storeDelivered' },
  { target: 'scheduled', actions: 'storeDelivered' },
] as const;

/**
 * Where a committed edit leaves a failed task: a receipt waiting for its write keeps waiting (the
 * retried write records it on the edited row); otherwise the backoff is forgotten.
 */
const afterEdit = [
  { guard: 'receiptWaits', actions: 'storeEditedRow' },
  { guard: 'rowIsDue', target: 'overdue', actions: 'storeRow' },
  { guard: 'rowPaused', target: 'paused', actions: 'storeRow' },
  { target: 'scheduled', actions: 'storeRow' },
] as const;

/** Where another failure leaves a task that is waiting to be retried (its receipt's write failed again). */
const afterRefailure = [
  { guard: 'parks', target: 'parked', actions: 'recordFailure' },
  { target: 'retrying', actions: 'recordFailure' },
] as const;

export const taskMachine = setup({
  types: {
    context: {} as TaskContext,
    input: {} as TaskInput,
    events: {} as TaskEvent,
  },
  guards: machineGuards<TaskContext, TaskEvent, typeof taskGuards>(taskGuards),
  actions: machineUpdates<TaskContext, TaskEvent, typeof taskUpdates>(taskUpdates),
}).createMachine({
  id: 'task',
  context: ({ input }) => input.row,
  initial: 'scheduled',
  states: {
    scheduled: {
      description: 'The target is in the future; a tick at or after it makes the task overdue.',
      // A row that is paused already (a restored pause) starts out paused.
      always: { guard: 'isPaused', target: 'paused' },
      on: {
        'clock.tick': { guard: 'isDue', target: 'overdue' },
        'task.updated': [
          { guard: 'rowIsDue', target: 'overdue', actions: 'storeRow' },
          { guard: 'rowPaused', target: 'paused', actions: 'storeRow' },
          { actions: 'storeRow' },
        ],
      },
    },
    paused: {
      description: 'Paused: never due until a committed resume, except for a run-now request.',
      on: {
        'clock.tick': { guard: 'isDue', target: 'overdue' },
        'task.updated': [
          { guard: 'rowIsDue', target: 'overdue', actions: 'storeRow' },
          { guard: 'rowPaused', actions: 'storeRow' },
          { target: 'scheduled', actions: 'storeRow' },
        ],
      },
    },
    overdue: {
      description:
        "The target has passed (or the task was run now, or its retry time came); it waits for its Session's next delivery attempt.",
      on: {
        'delivery.start': { target: 'delivering' },
        'clock.tick': [
          { guard: 'notDueButPaused', target: 'paused' },
          { guard: 'notDue', target: 'scheduled' },
        ],
        'task.updated': [
          { guard: 'rowIsDue', actions: 'storeRow' },
          { guard: 'rowPaused', target: 'paused', actions: 'storeRow' },
          { target: 'scheduled', actions: 'storeRow' },
        ],
      },
    },
    delivering: {
      description: "In the Session's attempt in flight; nothing is recorded until the flushed delivery is committed.",
      on: {
        'delivery.committed': afterCommit,
        'delivery.failed': [
          // A receipt whose write failed waits for the write's retry, whatever its target.
          { guard: 'receiptFailedAndParks', target: 'parked', actions: 'recordFailure' },
          { guard: 'receiptFailed', target: 'retrying', actions: 'recordFailure' },
          { guard: 'dueAndParks', target: 'parked', actions: 'recordFailure' },
          { guard: 'isDue', target: 'retrying', actions: 'recordFailure' },
          { guard: 'isPaused', target: 'paused' },
          { target: 'scheduled' },
        ],
        'task.updated': { actions: 'storeRow' },
      },
    },
    retrying: {
      description: 'The latest attempt failed; a tick at failure.nextRetryAt makes the task overdue again.',
      on: {
        'clock.tick': { guard: 'retryDue', target: 'overdue' },
        'delivery.retry': [{ guard: 'isDue', target: 'overdue', actions: 'forgetRetry' }, { actions: 'forgetRetry' }],
        'task.updated': afterEdit,
        // A receipt acknowledged before the failed write: its retried write commits or fails.
        'delivery.committed': afterCommit,
        'delivery.failed': afterRefailure,
      },
    },
    parked: {
      description:
        'The latest attempt failed and is not retried on a timer: an unrelated wake, a run now, an edit or a restart tries it again.',
      on: {
        'clock.tick': { guard: 'isDue', target: 'overdue' },
        'delivery.retry': [{ guard: 'isDue', target: 'overdue', actions: 'forgetRetry' }, { actions: 'forgetRetry' }],
        'task.updated': afterEdit,
        'delivery.committed': afterCommit,
        'delivery.failed': afterRefailure,
      },
    },
    inactive: {
      type: 'final',
      description: 'A one-shot was delivered or a recurring rule has no further target; the row is kept with its history.',
    },
  },
});

export type TaskMachine = typeof taskMachine;

/**
 * The logic spawned for every task: the task machine run by `flatMachineLogic` — the same states,
 * transitions, guards and updates, and the same snapshots, at a tenth of the cost per event of
 * XState's general algorithm (`machines/flatLogic.ts`).
 */
export const taskLogic: TaskMachine = flatMachineLogic(taskMachine, { guards: taskGuards, updates: taskUpdates });
