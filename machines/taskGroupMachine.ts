// A group of at most `TASK_GROUP_SIZE` task actors between a Session actor and its tasks. XState
// copies an actor's whole children map on every spawn and every stop, and stopping an actor stops
// its children one at a time, so with every task directly under its Session, creating or stopping
// n tasks of one Session would cost time quadratic in n; in groups each map copied stays small.
// The Session actor places new tasks in its first group with room, finds a task by asking its
// groups and sends its events straight to the task's actor (a group forwarding them would add an
// event and a send to every one); a group only spawns and stops its task actors — a task that
// ended (its final state) on the done event XState sends the group, with no event of its own.
// The group hears the wakes its task actors report (`task.wake`) through one listener of its own
// (`hearChildren`), not one subscription per task, and hands them to the runtime, whose timer keys
// the task by it.
import { assign, enqueueActions, setup } from 'xstate';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import type { SupervisorRuntime, TaskWake } from './events.ts';
import { hearChildren } from './flatLogic.ts';
import { taskLogic } from './taskMachine.ts';

/** The most task actors one group holds. */
export const TASK_GROUP_SIZE = 64;

/** A task group's input: the rows of its first task actors, and the runtime their wakes go to. */
export interface TaskGroupInput {
  readonly rows: readonly TaskRow[];
  readonly runtime?: SupervisorRuntime | undefined;
}

/** What a task group keeps: the runtime its task actors' wakes go to (absent in a machine tested on its own). */
export interface TaskGroupContext {
  readonly runtime: SupervisorRuntime | undefined;
}

export type TaskGroupEvent =
  /** Spawns task actors for these rows. */
  | { readonly type: 'tasks.spawn'; readonly rows: readonly TaskRow[] }
  /** Stops these tasks' actors. */
  | { readonly type: 'tasks.stop'; readonly ids: readonly string[] };

export const taskGroupMachine = setup({
  types: {
    context: {} as TaskGroupContext,
    input: {} as TaskGroupInput,
    events: {} as TaskGroupEvent,
  },
  actors: {
    task: taskLogic,
  },
  actions: {
    spawnTasks: assign(({ event, spawn }) => {
      if (event.type === 'tasks.spawn') {
        for (const row of event.rows) spawn('task', { id: row.record.id, input: { row } });
      }
      return {};
    }),
    stopTasks: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'tasks.stop') return;
      const children = self.getSnapshot().children as Record<string, unknown>;
      for (const id of event.ids) if (children[id] !== undefined) enqueue.stopChild(id);
    }),
    /** A task reached its final state (`inactive`): its actor leaves the group. */
    stopEnded: enqueueActions(({ enqueue, event, self }) => {
      const id = (event as { readonly actorId?: unknown }).actorId;
      if (typeof id === 'string' && (self.getSnapshot().children as Record<string, unknown>)[id] !== undefined) enqueue.stopChild(id);
    }),
  },
}).createMachine({
  id: 'taskGroup',
  context: ({ input, spawn, self }) => {
    const runtime = input.runtime;
    if (runtime !== undefined) {
      hearChildren(self, (event) => {
        if (event.type === 'task.wake') runtime.taskWake(event as TaskWake);
      });
    }
    for (const row of input.rows) spawn('task', { id: row.record.id, input: { row } });
    return { runtime: input.runtime };
  },
  initial: 'holding',
  states: {
    holding: {
      description: "Spawns and stops the group's task actors.",
      on: {
        'tasks.spawn': { actions: 'spawnTasks' },
        'tasks.stop': { actions: 'stopTasks' },
        'xstate.done.actor.*': { actions: 'stopEnded' },
      },
    },
  },
});

export type TaskGroupMachine = typeof taskGroupMachine;
