// The lifecycle of one task: `scheduled` until its target passes, `overdue` until its Session
// starts a delivery, `delivering` until the delivery is committed or fails, and `inactive` (final)
// once a one-shot was delivered or a recurring rule has no further target. A paused task waits in
// `paused` (never due, unless it is run now) until a committed resume. The context is the task
// row itself — what the JSON domain stores. Time enters only as events carrying `now`: no
// delayed transitions, so a restored actor needs nothing re-armed.
import { and, assign, not, setup } from 'xstate';
import { isDueAt } from '../src/domain/due.ts';
import type { TaskRow } from '../src/domain/types.ts';

export type TaskEvent =
  /** The service's timer found the task due (or the clock was read again). */
  | { readonly type: 'clock.tick'; readonly now: number }
  /** The Session actor includes this task in a delivery attempt. */
  | { readonly type: 'delivery.start' }
  /** Resolve, append or flush failed: nothing was recorded. */
  | { readonly type: 'delivery.failed'; readonly now: number }
  /** The delivery was committed; `row` is the written row. */
  | { readonly type: 'delivery.committed'; readonly row: TaskRow; readonly now: number }
  /** An update was committed; `row` is the written row. */
  | { readonly type: 'task.updated'; readonly row: TaskRow; readonly now: number };

export interface TaskInput {
  readonly row: TaskRow;
}

export { isDueAt };

/**
 * The committed row as a context update. `assign` merges into the context, and a row can lose
 * the members of a pause (resumed) and a run-now request (answered): those are set to undefined
 * when the row has none, every other member only ever changes or appears.
 */
const committedRow = (row: TaskRow): TaskRow => ({ pausedAt: undefined, triggeredAt: undefined, ...row }) as TaskRow;

export const taskMachine = setup({
  types: {
    context: {} as TaskRow,
    input: {} as TaskInput,
    events: {} as TaskEvent,
  },
  guards: {
    /** The current target is at or before the event's `now`. */
    isDue: ({ context, event }) => 'now' in event && isDueAt(context, event.now),
    /** The row carried by the event is due at the event's `now`. */
    rowIsDue: ({ event }) => 'row' in event && isDueAt(event.row, event.now),
    /** The row carried by the event has ended. */
    rowEnded: ({ event }) => 'row' in event && event.row.status === 'inactive',
    /** The task is paused. */
    isPaused: ({ context }) => context.pausedAt !== undefined,
    /** The row carried by the event is paused. */
    rowPaused: ({ event }) => 'row' in event && event.row.pausedAt !== undefined,
  },
  actions: {
    /** Takes the committed row as the context. */
    storeRow: assign(({ event }) => ('row' in event ? committedRow(event.row) : {})),
  },
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
      description: "The target has passed (or the task was run now); it waits for its Session's next delivery attempt.",
      on: {
        'delivery.start': { target: 'delivering' },
        'clock.tick': [
          { guard: and([not('isDue'), 'isPaused']), target: 'paused' },
          { guard: not('isDue'), target: 'scheduled' },
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
        'delivery.committed': [
          { guard: 'rowEnded', target: 'inactive', actions: 'storeRow' },
          { guard: 'rowIsDue', target: 'overdue', actions: 'storeRow' },
          { guard: 'rowPaused', target: 'paused', actions: 'storeRow' },
          { target: 'scheduled', actions: 'storeRow' },
        ],
        'delivery.failed': [{ guard: 'isDue', target: 'overdue' }, { guard: 'isPaused', target: 'paused' }, { target: 'scheduled' }],
        'task.updated': { actions: 'storeRow' },
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
 * The logic spawned for every task: the task machine itself, except that a new actor starts at
 * `scheduled` (`paused` for a paused row) with its row as context through XState's `resolveState` — the way a restored actor
 * starts — instead of computing the machine's initial transition. That transition has no entry
 * actions to run, so the result is the same snapshot; it costs a third as much, which matters
 * when a large domain opens with 100k tasks.
 */
export const taskLogic: TaskMachine = Object.create(taskMachine, {
  getInitialSnapshot: {
    value: (_scope: unknown, input: TaskInput) =>
      taskMachine.resolveState({ value: input.row.pausedAt === undefined ? 'scheduled' : 'paused', context: input.row }),
  },
});
