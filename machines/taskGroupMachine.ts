// A group of at most `TASK_GROUP_SIZE` task actors between a Session actor and its tasks. XState
// copies an actor's whole children map on every spawn and every stop (about 0.7 µs an entry once
// a stop has turned it into a dictionary), and stopping an actor stops its children one at a
// time, so with every task directly under its Session, creating 8,000 tasks in one Session took
// 22 s and stopping that Session 23 s; with groups of 64, 1.9 s and 0.6 s. The Session actor places
// new tasks in its first group with room, finds a task by asking its groups and sends its events
// straight to the task's actor (a forwarding hop per event cost a group event and a send per
// child); a group only spawns and stops its task actors.
import { assign, enqueueActions, setup } from 'xstate';
import type { TaskRow } from '../src/domain/types.ts';
import { taskLogic } from './taskMachine.ts';

/** The most task actors one group holds. */
export const TASK_GROUP_SIZE = 64;

export type TaskGroupEvent =
  /** Spawns task actors for these rows. */
  | { readonly type: 'tasks.spawn'; readonly rows: readonly TaskRow[] }
  /** Stops these tasks' actors. */
  | { readonly type: 'tasks.stop'; readonly ids: readonly string[] };

export const taskGroupMachine = setup({
  types: {
    input: {} as { readonly rows: readonly TaskRow[] },
    events: {} as TaskGroupEvent,
  },
  actors: {
    task: taskLogic,
  },
  actions: {
    spawnTasks: assign(({ event, spawn }) => {
      if (event.type === 'tasks.spawn') for (const row of event.rows) spawn('task', { id: row.record.id, input: { row } });
      return {};
    }),
    stopTasks: enqueueActions(({ enqueue, event, self }) => {
      if (event.type !== 'tasks.stop') return;
      const children = self.getSnapshot().children as Record<string, unknown>;
      for (const id of event.ids) if (children[id] !== undefined) enqueue.stopChild(id);
    }),
  },
}).createMachine({
  id: 'taskGroup',
  context: ({ input, spawn }) => {
    for (const row of input.rows) spawn('task', { id: row.record.id, input: { row } });
    return {};
  },
  initial: 'holding',
  states: {
    holding: {
      description: "Spawns and stops the group's task actors.",
      on: {
        'tasks.spawn': { actions: 'spawnTasks' },
        'tasks.stop': { actions: 'stopTasks' },
      },
    },
  },
});

export type TaskGroupMachine = typeof taskGroupMachine;
