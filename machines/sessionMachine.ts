// One actor per Session with active tasks, between the supervisor and that Session's task actors.
// It owns its task actors (spawned in one event on restore), gathers the Session's due tasks into
// one delivery attempt at a time (`idle` → `delivering` → `committing` → `idle`), and hands the
// flushed outcome to the supervisor, whose mailbox commits it. The attempt itself — resolve the
// Agent, append, flush — is the `deliverBatch` actor the service provides.
import { type ActorRefFrom, assign, enqueueActions, fromPromise, sendParent, setup } from 'xstate';
import type { TaskRow } from '../src/domain/types.ts';
import type { DeliveryOutcome, DeliveryRequest } from './events.ts';
import { isDueAt, type TaskMachine, taskLogic } from './taskMachine.ts';

export type SessionEvent =
  /** Spawns task actors for active rows (all restored rows of a Session arrive in one event). */
  | { readonly type: 'tasks.spawn'; readonly rows: readonly TaskRow[] }
  /** A committed change to an active row. */
  | { readonly type: 'task.put'; readonly row: TaskRow; readonly now: number }
  /** Deleted rows: their actors are stopped. */
  | { readonly type: 'tasks.remove'; readonly ids: readonly string[] }
  /** The timer found these tasks due. */
  | { readonly type: 'tasks.due'; readonly now: number; readonly ids: readonly string[] }
  /** The supervisor committed (or could not commit) the attempt in flight. */
  | {
      readonly type: 'delivery.settle';
      readonly committed: readonly TaskRow[];
      readonly failedIds: readonly string[];
      readonly now: number;
    };

export interface SessionContext {
  readonly sessionId: string;
  /** Ids reported due and not yet part of an attempt. */
  readonly due: readonly string[];
  /** The rows of the attempt in flight. */
  readonly inFlight: readonly TaskRow[];
  /** The wall clock of the latest `tasks.due` event (used when an attempt fails without an outcome). */
  readonly now: number;
}

/** The event a Session actor sends its parent when an attempt was flushed. */
export interface DeliveryFlushedEvent {
  readonly type: 'delivery.flushed';
  readonly sessionId: string;
  readonly outcome: DeliveryOutcome;
}

/** The event a Session actor sends its parent when an attempt failed before anything was flushed. */
export interface DeliveryFailedEvent {
  readonly type: 'delivery.failed';
  readonly sessionId: string;
  readonly ids: readonly string[];
  readonly now: number;
}

type TaskRef = ActorRefFrom<TaskMachine>;

const taskRefs = (children: Record<string, unknown>): Record<string, TaskRef | undefined> =>
  children as Record<string, TaskRef | undefined>;

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    input: {} as { readonly sessionId: string },
    events: {} as SessionEvent,
  },
  actors: {
    task: taskLogic,
    /** Resolve → followup → flush for one Session; provided by the service. */
    deliverBatch: fromPromise<DeliveryOutcome, DeliveryRequest>(async () => {
      throw new Error('deliverBatch is provided by the service');
    }),
  },
  guards: {
    hasDue: ({ context }) => context.due.length > 0,
    nothingInFlight: ({ context }) => context.inFlight.length === 0,
  },
  actions: {
    spawnTasks: assign(({ context, event, spawn }) => {
      if (event.type !== 'tasks.spawn') return {};
      for (const row of event.rows) spawn('task', { id: row.record.id, input: { row } });
      return { due: context.due };
    }),
    forwardPut: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'task.put') return;
      if (taskRefs(self.getSnapshot().children)[event.row.record.id] === undefined) {
        enqueue.spawnChild('task', { id: event.row.record.id, input: { row: event.row } });
      } else enqueue.sendTo(event.row.record.id, { type: 'task.updated', row: event.row, now: event.now });
    }),
    removeTasks: enqueueActions(({ enqueue, event, context, self }) => {
      if (event.type !== 'tasks.remove') return;
      const children = taskRefs(self.getSnapshot().children);
      for (const id of event.ids) {
        const child = children[id];
        if (child !== undefined) enqueue.stopChild(child);
      }
      const removed = new Set(event.ids);
      enqueue.assign({ due: context.due.filter((id) => !removed.has(id)) });
    }),
    markDue: enqueueActions(({ enqueue, event, context }) => {
      if (event.type !== 'tasks.due') return;
      for (const id of event.ids) enqueue.sendTo(id, { type: 'clock.tick', now: event.now });
      const due = new Set(context.due);
      for (const id of event.ids) due.add(id);
      enqueue.assign({ due: [...due], now: event.now });
    }),
    /**
     * Takes every due task into one attempt and tells each it is delivering. A task qualifies when
     * its target has passed at the latest due event's `now` and it is not already delivering; the
     * ticks sent in this same step reach the tasks before `delivery.start` does.
     */
    startAttempt: enqueueActions(({ enqueue, context, self }) => {
      const children = taskRefs(self.getSnapshot().children);
      const rows: TaskRow[] = [];
      for (const id of context.due) {
        const snapshot = children[id]?.getSnapshot();
        if (snapshot === undefined || snapshot.status !== 'active' || snapshot.matches('delivering')) continue;
        if (!isDueAt(snapshot.context, context.now)) continue;
        rows.push(snapshot.context);
        enqueue.sendTo(id, { type: 'delivery.start' });
      }
      enqueue.assign({ due: [], inFlight: rows });
    }),
    failAttempt: enqueueActions(({ enqueue, context }) => {
      for (const row of context.inFlight) enqueue.sendTo(row.record.id, { type: 'delivery.failed', now: context.now });
      enqueue.assign({ inFlight: [] });
    }),
    settleAttempt: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'delivery.settle') return;
      const children = taskRefs(self.getSnapshot().children);
      for (const row of event.committed) {
        const child = children[row.record.id];
        if (child === undefined) continue;
        enqueue.sendTo(child, { type: 'delivery.committed', row, now: event.now });
        if (row.status === 'inactive') enqueue.stopChild(child);
      }
      for (const id of event.failedIds) {
        const child = children[id];
        if (child !== undefined) enqueue.sendTo(child, { type: 'delivery.failed', now: event.now });
      }
      enqueue.assign({ inFlight: [] });
    }),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({ sessionId: input.sessionId, due: [], inFlight: [], now: 0 }),
  initial: 'idle',
  on: {
    'tasks.spawn': { actions: 'spawnTasks' },
    'task.put': { actions: 'forwardPut' },
    'tasks.remove': { actions: 'removeTasks' },
    'tasks.due': { actions: 'markDue' },
  },
  states: {
    idle: {
      description: 'No attempt in flight; tasks reported due start one.',
      always: { guard: 'hasDue', target: 'starting' },
    },
    /** Takes the due, overdue tasks into an attempt; with none left (edited or deleted meanwhile) there is nothing to do. */
    starting: {
      description: 'Takes every due task into one attempt (none left: back to idle).',
      entry: 'startAttempt',
      always: [{ guard: 'nothingInFlight', target: 'idle' }, { target: 'delivering' }],
    },
    delivering: {
      description: 'Resolve the Agent, append the messages, flush the Session.',
      invoke: {
        src: 'deliverBatch',
        input: ({ context }) => ({ sessionId: context.sessionId, now: context.now, rows: context.inFlight }),
        onDone: {
          target: 'committing',
          actions: sendParent(
            ({ context, event }): DeliveryFlushedEvent => ({
              type: 'delivery.flushed',
              sessionId: context.sessionId,
              outcome: event.output,
            }),
          ),
        },
        onError: {
          target: 'idle',
          actions: [
            sendParent(
              ({ context }): DeliveryFailedEvent => ({
                type: 'delivery.failed',
                sessionId: context.sessionId,
                ids: context.inFlight.map((row) => row.record.id),
                now: context.now,
              }),
            ),
            'failAttempt',
          ],
        },
      },
    },
    committing: {
      description: "The flushed outcome waits in the supervisor's mailbox to be recorded.",
      on: { 'delivery.settle': { target: 'idle', actions: 'settleAttempt' } },
    },
  },
});

export type SessionMachine = typeof sessionMachine;
