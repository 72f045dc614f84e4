// One actor per Session with active tasks, between its Session group and that Session's task
// actors. It owns its task actors — in task groups of at most 64 (`taskGroupMachine.ts`), new
// tasks going to the first group with room, restored ones spawned in one event per group —
// gathers the Session's due tasks into one delivery attempt at a time (`idle` → `delivering` →
// `committing` → `idle`), and hands the flushed outcome up to the supervisor, whose mailbox
// commits it. The attempt itself — resolve the Agent, append, flush — is the `deliverBatch` actor
// the service provides.
import { type ActorRefFrom, enqueueActions, fromPromise, sendParent, setup } from 'xstate';
import type { TaskRow } from '../src/domain/types.ts';
import type { DeliveryInput, DeliveryOutcome, SupervisorRuntime } from './events.ts';
import { TASK_GROUP_SIZE, type TaskDelivery, type TaskGroupEvent, type TaskGroupMachine, taskGroupMachine } from './taskGroupMachine.ts';
import { isDueAt, type TaskEvent, type TaskMachine } from './taskMachine.ts';

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
  /** The effects the delivery attempts run with (absent in a machine tested on its own). */
  readonly runtime: SupervisorRuntime | undefined;
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
type GroupRef = ActorRefFrom<TaskGroupMachine>;

const GROUP_PREFIX = 'tasks:';

/** The Session's task groups (its other child is the attempt in flight), in creation order. */
function taskGroups(children: Readonly<Record<string, unknown>>): Array<[string, GroupRef]> {
  const groups: Array<[string, GroupRef]> = [];
  for (const id in children) if (id.startsWith(GROUP_PREFIX)) groups.push([id, children[id] as GroupRef]);
  return groups;
}

/** Finds task actors in the Session's groups (one lookup per group: a Session of k tasks has about k / 64). */
class TaskIndex {
  private readonly groups: Array<[string, GroupRef]>;

  constructor(children: Readonly<Record<string, unknown>>) {
    this.groups = taskGroups(children);
  }

  find(id: string): { readonly group: string; readonly task: TaskRef } | undefined {
    for (const [group, ref] of this.groups) {
      const task = ref.getSnapshot().children[id] as TaskRef | undefined;
      if (task !== undefined) return { group, task };
    }
    return undefined;
  }

  /**
   * Where new rows go: the first groups with room, then new groups of at most `TASK_GROUP_SIZE`.
   * `spawn` marks a group that does not exist yet.
   */
  place(rows: readonly TaskRow[]): Array<{ readonly group: string; readonly spawn: boolean; readonly rows: TaskRow[] }> {
    const out: Array<{ group: string; spawn: boolean; rows: TaskRow[] }> = [];
    let next = 0;
    let i = 0;
    for (const [group, ref] of this.groups) {
      next = Math.max(next, Number(group.slice(GROUP_PREFIX.length)) + 1);
      if (i >= rows.length) continue;
      const room = TASK_GROUP_SIZE - Object.keys(ref.getSnapshot().children).length;
      if (room <= 0) continue;
      out.push({ group, spawn: false, rows: rows.slice(i, i + room) });
      i += room;
    }
    for (; i < rows.length; i += TASK_GROUP_SIZE, next++) {
      out.push({ group: `${GROUP_PREFIX}${next}`, spawn: true, rows: rows.slice(i, i + TASK_GROUP_SIZE) });
    }
    return out;
  }
}

/** Events for tasks gathered per group, each group's in the order added, plus stops after them. */
class GroupSends {
  readonly deliveries = new Map<string, TaskDelivery[]>();
  readonly stops = new Map<string, string[]>();

  send(group: string, id: string, event: TaskEvent): void {
    const list = this.deliveries.get(group);
    if (list === undefined) this.deliveries.set(group, [{ id, event }]);
    else list.push({ id, event });
  }

  stop(group: string, id: string): void {
    const list = this.stops.get(group);
    if (list === undefined) this.stops.set(group, [id]);
    else list.push(id);
  }

  /** The group events: each group's deliveries, then each group's stops. */
  *events(): Generator<{ readonly group: string; readonly event: TaskGroupEvent }> {
    for (const [group, deliveries] of this.deliveries) yield { group, event: { type: 'tasks.send', deliveries } };
    for (const [group, ids] of this.stops) yield { group, event: { type: 'tasks.stop', ids } };
  }
}

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    input: {} as { readonly sessionId: string; readonly runtime?: SupervisorRuntime | undefined },
    events: {} as SessionEvent,
  },
  actors: {
    taskGroup: taskGroupMachine,
    /** Resolve → followup → flush for one Session; provided by the service. */
    deliverBatch: fromPromise<DeliveryOutcome, DeliveryInput>(async () => {
      throw new Error('deliverBatch is provided by the service');
    }),
  },
  guards: {
    hasDue: ({ context }) => context.due.length > 0,
    nothingInFlight: ({ context }) => context.inFlight.length === 0,
  },
  actions: {
    /**
     * A committed row reaches its task actor; a row without one (a new task, or the Session's
     * restored tasks in one event) is spawned in the first groups with room, then in new groups.
     */
    putTasks: enqueueActions(({ enqueue, event, self }) => {
      const rows = event.type === 'tasks.spawn' ? event.rows : event.type === 'task.put' ? [event.row] : [];
      const index = new TaskIndex(self.getSnapshot().children);
      const sends = new GroupSends();
      const fresh: TaskRow[] = [];
      for (const row of rows) {
        const found = index.find(row.record.id);
        if (found === undefined) fresh.push(row);
        else if (event.type === 'task.put') sends.send(found.group, row.record.id, { type: 'task.updated', row, now: event.now });
      }
      for (const { group, event: groupEvent } of sends.events()) enqueue.sendTo(group, groupEvent);
      for (const { group, spawn, rows: placed } of index.place(fresh)) {
        if (spawn) enqueue.spawnChild('taskGroup', { id: group, input: { rows: placed } });
        else enqueue.sendTo(group, { type: 'tasks.spawn', rows: placed });
      }
    }),
    removeTasks: enqueueActions(({ enqueue, event, context, self }) => {
      if (event.type !== 'tasks.remove') return;
      const index = new TaskIndex(self.getSnapshot().children);
      const sends = new GroupSends();
      for (const id of event.ids) {
        const found = index.find(id);
        if (found !== undefined) sends.stop(found.group, id);
      }
      for (const { group, event: groupEvent } of sends.events()) enqueue.sendTo(group, groupEvent);
      const removed = new Set(event.ids);
      enqueue.assign({ due: context.due.filter((id) => !removed.has(id)) });
    }),
    markDue: enqueueActions(({ enqueue, event, context, self }) => {
      if (event.type !== 'tasks.due') return;
      const index = new TaskIndex(self.getSnapshot().children);
      const sends = new GroupSends();
      for (const id of event.ids) {
        const found = index.find(id);
        if (found !== undefined) sends.send(found.group, id, { type: 'clock.tick', now: event.now });
      }
      for (const { group, event: groupEvent } of sends.events()) enqueue.sendTo(group, groupEvent);
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
      const index = new TaskIndex(self.getSnapshot().children);
      const sends = new GroupSends();
      const rows: TaskRow[] = [];
      for (const id of context.due) {
        const found = index.find(id);
        const snapshot = found?.task.getSnapshot();
        if (found === undefined || snapshot === undefined || snapshot.status !== 'active' || snapshot.matches('delivering')) continue;
        if (!isDueAt(snapshot.context, context.now)) continue;
        rows.push(snapshot.context);
        sends.send(found.group, id, { type: 'delivery.start' });
      }
      for (const { group, event: groupEvent } of sends.events()) enqueue.sendTo(group, groupEvent);
      enqueue.assign({ due: [], inFlight: rows });
    }),
    failAttempt: enqueueActions(({ enqueue, context, self }) => {
      const index = new TaskIndex(self.getSnapshot().children);
      const sends = new GroupSends();
      for (const row of context.inFlight) {
        const found = index.find(row.record.id);
        if (found !== undefined) sends.send(found.group, row.record.id, { type: 'delivery.failed', now: context.now });
      }
      for (const { group, event: groupEvent } of sends.events()) enqueue.sendTo(group, groupEvent);
      enqueue.assign({ inFlight: [] });
    }),
    settleAttempt: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'delivery.settle') return;
      const index = new TaskIndex(self.getSnapshot().children);
      const sends = new GroupSends();
      for (const row of event.committed) {
        const found = index.find(row.record.id);
        if (found === undefined) continue;
        sends.send(found.group, row.record.id, { type: 'delivery.committed', row, now: event.now });
        if (row.status === 'inactive') sends.stop(found.group, row.record.id);
      }
      for (const id of event.failedIds) {
        const found = index.find(id);
        if (found !== undefined) sends.send(found.group, id, { type: 'delivery.failed', now: event.now });
      }
      for (const { group, event: groupEvent } of sends.events()) enqueue.sendTo(group, groupEvent);
      enqueue.assign({ inFlight: [] });
    }),
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({ sessionId: input.sessionId, runtime: input.runtime, due: [], inFlight: [], now: 0 }),
  initial: 'idle',
  on: {
    'tasks.spawn': { actions: 'putTasks' },
    'task.put': { actions: 'putTasks' },
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
        input: ({ context }) => ({ sessionId: context.sessionId, rows: context.inFlight, runtime: context.runtime }),
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
