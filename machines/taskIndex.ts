// Finding a Session's task actors in its task groups (their events are sent straight to them), and
// gathering the stops of task actors per group.
// Read by the Session actor's actions and, through snapshots only, by whoever looks a task up
// (the runtime reads a task's state and retry status this way; nothing mirrors them).
import type { ActorRefFrom } from 'xstate';
import type { TaskRow } from '../src/domain/tasks/types.ts';
import { TASK_GROUP_SIZE, type TaskGroupEvent, type TaskGroupMachine } from './taskGroupMachine.ts';
import type { TaskMachine } from './taskMachine.ts';

export type TaskRef = ActorRefFrom<TaskMachine>;
export type GroupRef = ActorRefFrom<TaskGroupMachine>;

const GROUP_PREFIX = 'tasks:';

/** The Session's task groups (its other child is the attempt in flight), in creation order. */
function taskGroups(children: Readonly<Record<string, unknown>>): Array<[string, GroupRef]> {
  const groups: Array<[string, GroupRef]> = [];
  for (const id in children) if (id.startsWith(GROUP_PREFIX)) groups.push([id, children[id] as GroupRef]);
  return groups;
}

/** Finds task actors in the Session's groups (one lookup per group: a Session of k tasks has about k / 64). */
export class TaskIndex {
  private readonly groups: Array<[string, GroupRef]>;

  /** `children`: the Session actor's snapshot's children. */
  constructor(children: Readonly<Record<string, unknown>>) {
    this.groups = taskGroups(children);
  }

  find(id: string): { readonly group: GroupRef; readonly task: TaskRef } | undefined {
    for (const [, group] of this.groups) {
      const task = group.getSnapshot().children[id] as TaskRef | undefined;
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

/** Task actors to stop, gathered per group (only a group stops its children): one event per group. */
export class GroupStops {
  readonly stops = new Map<GroupRef, string[]>();

  stop(group: GroupRef, id: string): void {
    const list = this.stops.get(group);
    if (list === undefined) this.stops.set(group, [id]);
    else list.push(id);
  }

  /** Each group's stop event. */
  *events(): Generator<{ readonly group: GroupRef; readonly event: TaskGroupEvent }> {
    for (const [group, ids] of this.stops) yield { group, event: { type: 'tasks.stop', ids } };
  }
}
