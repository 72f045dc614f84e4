// The lifecycle of one task: `scheduled` until its target passes, `overdue` until its Session
// starts a delivery, `delivering` until the delivery is committed or fails, and `inactive` (final)
// once a one-shot was delivered or a recurring rule has no further target. A paused task waits in
// `paused` (never due, unless it is run now) until a committed resume. A failed delivery leaves the
// task `retrying` until its next retry (the instant is `failure.nextRetryAt` in the context), or
// `parked` when retry is off; an edit or a run now forgets the backoff, a committed delivery the
// failure. The context is the task row — what storage holds, its failure status included — plus
// the backoff step and, while the Session acknowledged a reminder whose row write failed, that
// receipt waiting for its write: only this machine keeps them (in memory, so a restart loses a
// waiting receipt and the reminder is delivered again — at-least-once). A task holding a receipt
// is not delivered again: only a committed write of it (or its delete) takes it out of `retrying`
// or `parked`. The failure status is written to storage after
// the actor took it (the slot runner's failure write), so a restored actor starts with the
// failure it had and counts its attempts on; its backoff starts over, and — like every restored
// task — a due one is tried again at once. Time enters only as events carrying `now`: no delayed
// transitions, so a restored actor needs nothing re-armed. The actor tells the timer's owner when
// it next wants a tick: it emits its wake (`task.wake`: its due instant, its next retry, or parked)
// whenever a failed attempt, a retry now, or a committed edit or delivery of a failing task changes
// it, and when a tick did not find a parked or overdue task due — so the timer keys a task by what
// its actor reported and never reads the actor back. Its wake carries its waiting receipt, from
// which the timer's owner builds the receipt's retried write.
import { setup } from 'xstate';
import { afterFailure, type RetryState, withoutRetry } from '../src/domain/tasks/retry.ts';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import { dueAtMs, isDueAt } from '../src/domain/time/due.ts';
import { instantMs } from '../src/domain/time/instant.ts';
import type { TaskAttemptFailure, TaskWake, WaitingReceipt } from './events.ts';
import {
  type ContextPatch,
  type EffectArgs,
  flatMachineLogic,
  machineEffects,
  machineGuards,
  machineUpdates,
  type Outbox,
} from './flatLogic.ts';

/**
 * A task actor's context: its committed row — the object the service's table holds, never a copy
 * of it — and what only the actor keeps: the failure status of its latest failed attempts (the
 * row's until an attempt fails, then ahead of it until the failure write), after a failed
 * delivery the backoff step, and after a failed write of an acknowledged reminder its receipt,
 * until a write records it (the one copy of it).
 */
export interface TaskContext {
  readonly row: TaskRow;
  readonly failure?: TaskRow['failure'];
  readonly retries?: RetryState['retries'] | undefined;
  readonly receipt?: WaitingReceipt | undefined;
}

export type TaskEvent =
  /** The timer found the task due (at its target, its retry time, or a run-now request). */
  | { readonly type: 'clock.tick'; readonly now: number }
  /** The Session actor includes this task in a delivery attempt. */
  | { readonly type: 'delivery.start' }
  /** Resolve, append, flush or the receipt's write failed (the receipt comes with it): nothing was recorded. */
  | { readonly type: 'delivery.failed'; readonly now: number; readonly failure: TaskAttemptFailure }
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

/** The context of a task restored or created: its row, and the row's failure status. */
const contextOf = (row: TaskRow): TaskContext => (row.failure === undefined ? { row } : { row, failure: row.failure });

/**
 * What a committed edit leaves: the row, and the failure status without its backoff. The failure
 * status is the actor's own: an edit writes the row's stored one, which may be behind.
 */
const editedContext = (context: TaskContext, row: TaskRow): ContextPatch<TaskContext> => ({
  row,
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
  isDue: (context: TaskContext, event: TaskEvent) => 'now' in event && isDueAt(context.row, event.now),
  /** The current target is still ahead of the event's `now`. */
  notDue: (context: TaskContext, event: TaskEvent) => 'now' in event && !isDueAt(context.row, event.now),
  /** The target is still ahead, and the task is paused. */
  notDueButPaused: (context: TaskContext, event: TaskEvent) =>
    'now' in event && !isDueAt(context.row, event.now) && context.row.pausedAt !== undefined,
  /** The row carried by the event is due at the event's `now`. */
  rowIsDue: (_context: TaskContext, event: TaskEvent) => 'row' in event && isDueAt(event.row, event.now),
  /** The row carried by the event has ended. */
  rowEnded: (_context: TaskContext, event: TaskEvent) => 'row' in event && event.row.status === 'inactive',
  /** The task is paused. */
  isPaused: (context: TaskContext) => context.row.pausedAt !== undefined,
  /** The row carried by the event is paused. */
  rowPaused: (_context: TaskContext, event: TaskEvent) => 'row' in event && event.row.pausedAt !== undefined,
  /**
   * The task is due and its retry time has come by the event's `now` — never while a receipt
   * waits: its retry is the write's, and the task is not delivered again.
   */
  retryDue: (context: TaskContext, event: TaskEvent) =>
    context.receipt === undefined &&
    'now' in event &&
    isDueAt(context.row, event.now) &&
    event.now >= (nextRetryMs(context) ?? Number.POSITIVE_INFINITY),
  /** The failed task is due and holds no receipt waiting for its write: it can be delivered again. */
  dueWithoutReceipt: (context: TaskContext, event: TaskEvent) =>
    context.receipt === undefined && 'now' in event && isDueAt(context.row, event.now),
  /** The task is due, and the failure is not retried on a timer (retry off, or a message id that cannot be recorded). */
  dueAndParks: (context: TaskContext, event: TaskEvent) =>
    event.type === 'delivery.failed' && event.failure.retry === false && isDueAt(context.row, event.now),
  /** The failure is not retried on a timer. */
  parks: (_context: TaskContext, event: TaskEvent) => event.type === 'delivery.failed' && event.failure.retry === false,
  /** The task's receipt waits for its write to be retried. */
  receiptWaits: (context: TaskContext) => context.receipt !== undefined,
  /** The Session acknowledged the reminder but its receipt could not be written (the event carries it). */
  receiptFailed: (_context: TaskContext, event: TaskEvent) => event.type === 'delivery.failed' && event.failure.receipt !== undefined,
  /** The receipt could not be written, and the failure is not retried on a timer. */
  receiptFailedAndParks: (_context: TaskContext, event: TaskEvent) =>
    event.type === 'delivery.failed' && event.failure.receipt !== undefined && event.failure.retry === false,
};

/** The wake of a task that waits for its due instant (none while paused with nothing to run). */
const dueWake = (context: TaskContext): TaskWake => ({
  type: 'task.wake',
  id: context.row.record.id,
  waits: 'due',
  at: dueAtMs(context.row),
  failure: context.failure,
  receipt: context.receipt,
});

/**
 * The wake of a retrying task: for a receipt waiting for its write, its next retry (the write's,
 * whatever its target); otherwise the first tick at which `retryDue` holds, its next retry once it
 * is due.
 */
const retryWake = (context: TaskContext): TaskWake => {
  const retry = nextRetryMs(context);
  const due = context.receipt !== undefined ? retry : dueAtMs(context.row);
  const at = retry === undefined || due === undefined ? undefined : Math.max(retry, due);
  return { type: 'task.wake', id: context.row.record.id, waits: 'retry', at, failure: context.failure, receipt: context.receipt };
};

/** The wake of a parked task: no time, an unrelated wake tries it again. */
const parkedWake = (context: TaskContext): TaskWake => ({
  type: 'task.wake',
  id: context.row.record.id,
  waits: 'parked',
  at: undefined,
  failure: context.failure,
  receipt: context.receipt,
});

/** The task machine's actions, as plain updates of the context. */
const taskUpdates = {
  /** Takes the committed row of an edit, keeping the retry state. */
  storeEditedRow: (_context: TaskContext, event: TaskEvent): ContextPatch<TaskContext> => ('row' in event ? { row: event.row } : {}),
  /**
   * Counts one more failed attempt and sets the next retry (none when parked); a receipt whose
   * write failed is kept (one already waiting stays until a write records it).
   */
  recordFailure: (context: TaskContext, event: TaskEvent): ContextPatch<TaskContext> =>
    event.type === 'delivery.failed'
      ? { ...afterFailure(context, event.failure, event.now), receipt: event.failure.receipt ?? context.receipt }
      : {},
  /** Forgets the backoff: the task is tried again at once. */
  forgetRetry: (context: TaskContext): ContextPatch<TaskContext> => ({ failure: withoutRetry(context.failure), retries: undefined }),
};

type TaskArgs = EffectArgs<TaskContext, TaskEvent>;

/** The task machine's actions that report its wake (emit `task.wake`), updating the context or not. */
const taskEffects = {
  /**
   * Takes the committed row of an edit; the backoff is forgotten. A task carrying a
   * failure status reports its wake: its due instant, its failure status without a next retry.
   */
  storeRow: ({ context, event }: TaskArgs, outbox: Outbox): ContextPatch<TaskContext> | undefined => {
    if (!('row' in event)) return undefined;
    const next = editedContext(context, event.row);
    if (context.failure !== undefined) outbox.emit(dueWake({ ...context, ...next } as TaskContext));
    return next;
  },
  /**
   * Takes the committed row of a delivery; a failure status and a waiting receipt (the row records
   * it) are cleared, and the wake reported.
   */
  storeDelivered: ({ context, event }: TaskArgs, outbox: Outbox): ContextPatch<TaskContext> | undefined => {
    if (!('row' in event)) return undefined;
    const next: ContextPatch<TaskContext> = { row: event.row, failure: undefined, retries: undefined, receipt: undefined };
    if (context.failure !== undefined || context.receipt !== undefined) outbox.emit(dueWake({ ...context, ...next } as TaskContext));
    return next;
  },
  /** Reports that the task waits for its due instant. */
  reportDue: ({ context }: TaskArgs, outbox: Outbox): undefined => {
    outbox.emit(dueWake(context));
    return undefined;
  },
  /** Reports that the task waits for its next retry. */
  reportRetry: ({ context }: TaskArgs, outbox: Outbox): undefined => {
    outbox.emit(retryWake(context));
    return undefined;
  },
  /** Reports that the task is parked. */
  reportParked: ({ context }: TaskArgs, outbox: Outbox): undefined => {
    outbox.emit(parkedWake(context));
    return undefined;
  },
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

/**
 * What a failed task (`retrying` or `parked`, which `report` reports) takes besides its tick: a
 * retry now, an edit, and the commit or the failure of its receipt's retried write.
 */
const whileFailed = <R extends 'reportRetry' | 'reportParked'>(report: R) =>
  ({
    // A receipt waiting for its write stays: its write is what is retried now.
    'delivery.retry': [
      { guard: 'dueWithoutReceipt', target: 'overdue', actions: ['forgetRetry', 'reportDue'] },
      { actions: ['forgetRetry', report] },
    ],
    'task.updated': afterEdit,
    // A receipt acknowledged before the failed write: its retried write commits or fails.
    'delivery.committed': afterCommit,
    'delivery.failed': [
      { guard: 'parks', target: 'parked', actions: ['recordFailure', 'reportParked'] },
      { target: 'retrying', actions: ['recordFailure', 'reportRetry'] },
    ],
  }) as const;

export const taskMachine = setup({
  types: {
    context: {} as TaskContext,
    input: {} as TaskInput,
    events: {} as TaskEvent,
    emitted: {} as TaskWake,
  },
  guards: machineGuards<TaskContext, TaskEvent, typeof taskGuards>(taskGuards),
  actions: {
    ...machineUpdates<TaskContext, TaskEvent, typeof taskUpdates>(taskUpdates),
    ...machineEffects<TaskContext, TaskEvent, typeof taskEffects, TaskWake>(taskEffects),
  },
}).createMachine({
  id: 'task',
  context: ({ input }) => contextOf(input.row),
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
          { guard: 'notDueButPaused', target: 'paused', actions: 'reportDue' },
          { guard: 'notDue', target: 'scheduled', actions: 'reportDue' },
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
          { guard: 'receiptFailedAndParks', target: 'parked', actions: ['recordFailure', 'reportParked'] },
          { guard: 'receiptFailed', target: 'retrying', actions: ['recordFailure', 'reportRetry'] },
          { guard: 'dueAndParks', target: 'parked', actions: ['recordFailure', 'reportParked'] },
          { guard: 'isDue', target: 'retrying', actions: ['recordFailure', 'reportRetry'] },
          // An edit landed during the attempt: the task waits for its (new) target.
          { guard: 'isPaused', target: 'paused', actions: 'reportDue' },
          { target: 'scheduled', actions: 'reportDue' },
        ],
        'task.updated': { actions: 'storeRow' },
      },
    },
    retrying: {
      description: 'The latest attempt failed; a tick at failure.nextRetryAt makes the task overdue again.',
      // Its key is the first instant `retryDue` holds: a tick never finds it early.
      on: { 'clock.tick': { guard: 'retryDue', target: 'overdue' }, ...whileFailed('reportRetry') },
    },
    parked: {
      description:
        'The latest attempt failed and is not retried on a timer: an unrelated wake, a run now, an edit or a restart tries it again.',
      on: {
        // Any wake hands it out: one that does not find it due (the clock stepped back) leaves it parked, reported again.
        'clock.tick': [{ guard: 'dueWithoutReceipt', target: 'overdue' }, { actions: 'reportParked' }],
        ...whileFailed('reportParked'),
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
 * transitions, guards and updates, and the same snapshots, without the per-event work of
 * XState's general algorithm (`machines/flatLogic.ts`).
 */
export const taskLogic: TaskMachine = flatMachineLogic(taskMachine, { guards: taskGuards, updates: taskUpdates, effects: taskEffects });
