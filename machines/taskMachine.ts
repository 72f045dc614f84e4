// The lifecycle of one task: `scheduled` until its target passes, `overdue` until its Session
// starts a delivery, `delivering` until the delivery is committed or fails, and `inactive` (final)
// once a one-shot was delivered or a recurring rule has no further target. The context is the
// task row itself — what the JSON domain stores. Time enters only as events carrying `now`: no
// delayed transitions, so a restored actor needs nothing re-armed.
import { assign, not, setup } from 'xstate';
import { instantMs } from '../src/domain/instant.ts';
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

/** True when the row's target is at or before `now`. */
export const isDueAt = (row: TaskRow, now: number): boolean => instantMs(row.record.scheduledAt) <= now;

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
  },
  actions: {
    /** Takes the committed row as the context (rows only ever gain fields, so a merge is exact). */
    storeRow: assign(({ event }) => ('row' in event ? event.row : {})),
  },
}).createMachine({
  id: 'task',
  context: ({ input }) => input.row,
  initial: 'scheduled',
  states: {
    scheduled: {
      description: 'The target is in the future; a tick at or after it makes the task overdue.',
      on: {
        'clock.tick': { guard: 'isDue', target: 'overdue' },
        'task.updated': [{ guard: 'rowIsDue', target: 'overdue', actions: 'storeRow' }, { actions: 'storeRow' }],
      },
    },
    overdue: {
      description: "The target has passed; the task waits for its Session's next delivery attempt.",
      on: {
        'delivery.start': { target: 'delivering' },
        'clock.tick': { guard: not('isDue'), target: 'scheduled' },
        'task.updated': [
          { guard: 'rowIsDue', actions: 'storeRow' },
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
          { target: 'scheduled', actions: 'storeRow' },
        ],
        'delivery.failed': [{ guard: 'isDue', target: 'overdue' }, { target: 'scheduled' }],
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
 * `scheduled` with its row as context through XState's `resolveState` — the way a restored actor
 * starts — instead of computing the machine's initial transition. That transition has no entry
 * actions to run, so the result is the same snapshot; it costs a third as much, which matters
 * when a large domain opens with 100k tasks.
 */
export const taskLogic: TaskMachine = Object.create(taskMachine, {
  getInitialSnapshot: {
    value: (_scope: unknown, input: TaskInput) => taskMachine.resolveState({ value: 'scheduled', context: input.row }),
  },
});
