// The bounded summary of an actor system of any size. One pass over the live records tallies each
// Session's live tasks and due work and keeps the best few Sessions and the best few tasks the
// query selects (TopList: one comparison per candidate); the view is then those actors with their
// ancestors, the supervisors and the effects under anything shown — a few hundred actors whether
// the schedule holds a hundred tasks or a million. Entries are those of the actors in view (and of
// gone actors the query matches), so what a client is shown is what it is streamed.
import type { PassiveTasksReader } from './actorInfo.ts';
import type { ActorRecord, ActorTree } from './actorTree.ts';
import type { EventRing } from './eventRing.ts';
import { TopList } from './topList.ts';
import type {
  InspectedActorKind,
  InspectedPassiveTask,
  InspectedSession,
  InspectorEntry,
  InspectorQuery,
  InspectorSummary,
} from './types.ts';

/** How many Sessions a summary lists by default, and at most. */
export const SUMMARY_SESSIONS = { default: 50, max: 500 } as const;
/** How many tasks a summary lists by default, and at most. */
export const SUMMARY_TASKS = { default: 100, max: 1_000 } as const;
/** How many of the newest entries a summary holds by default. */
const DEFAULT_ENTRIES = 100;

/** The task actor states that are due work. */
const DUE_STATES: ReadonlySet<unknown> = new Set(['overdue', 'delivering', 'retrying']);

/** A query with its bounds applied and its text lower-cased. */
export interface ResolvedQuery {
  readonly sessionId: string | undefined;
  readonly text: string | undefined;
  readonly limit: number;
  readonly sessions: number;
  readonly tasks: number;
}

const bounded = (value: number | undefined, bounds: { readonly default: number; readonly max: number }): number =>
  value === undefined || !Number.isFinite(value) ? bounds.default : Math.min(bounds.max, Math.max(0, Math.floor(value)));

/** Applies the defaults and bounds of {@link InspectorQuery}. */
export function resolveQuery(query: InspectorQuery = {}): ResolvedQuery {
  const text = query.text?.trim().toLowerCase();
  return {
    sessionId: query.sessionId,
    text: text === undefined || text === '' ? undefined : text,
    limit: query.limit === undefined ? DEFAULT_ENTRIES : Math.max(0, Math.floor(query.limit)),
    sessions: bounded(query.sessions, SUMMARY_SESSIONS),
    tasks: bounded(query.tasks, SUMMARY_TASKS),
  };
}

/** Whether a task (live or passivated) is one the query selects. */
export function selectsTask(
  query: ResolvedQuery,
  task: { readonly id: string; readonly session?: string; readonly title?: string },
): boolean {
  if (query.sessionId !== undefined && task.session !== query.sessionId) return false;
  const { text } = query;
  if (text === undefined) return true;
  return (
    task.id.toLowerCase().includes(text) ||
    (task.title?.toLowerCase().includes(text) ?? false) ||
    (task.session?.toLowerCase().includes(text) ?? false)
  );
}

interface SessionTally {
  readonly sessionId: string;
  actor: ActorRecord | undefined;
  tasks: number;
  due: number;
  next: string | undefined;
}

/** Undefined sorts last. */
const earlier = (a: string | undefined, b: string | undefined): number =>
  a === b ? 0 : a === undefined ? 1 : b === undefined ? -1 : a < b ? -1 : 1;

const bySessionWork = (a: SessionTally, b: SessionTally): number =>
  b.due - a.due || earlier(a.next, b.next) || b.tasks - a.tasks || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0);

const isDue = (task: ActorRecord): boolean => DUE_STATES.has(task.state);
const byTaskWork = (a: ActorRecord, b: ActorRecord): number =>
  Number(isDue(b)) - Number(isDue(a)) || earlier(a.target, b.target) || a.order - b.order;

const KINDS: readonly InspectedActorKind[] = ['supervisor', 'group', 'session', 'task', 'effect', 'other'];

/** What a summary is taken from. */
export interface SummarySources {
  readonly tree: ActorTree;
  readonly ring: EventRing<InspectorEntry>;
  readonly passive: PassiveTasksReader | undefined;
  readonly seq: number;
}

/** The bounded summary of `sources` for `query`. */
export function summarise(sources: SummarySources, query: ResolvedQuery): InspectorSummary {
  const { tree, ring } = sources;
  const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<InspectedActorKind, number>;
  const tallies = new Map<string, SessionTally>();
  const tally = (sessionId: string): SessionTally => {
    let t = tallies.get(sessionId);
    if (t === undefined) {
      t = { sessionId, actor: undefined, tasks: 0, due: 0, next: undefined };
      tallies.set(sessionId, t);
    }
    return t;
  };
  const tasks = new TopList<ActorRecord>(query.tasks, byTaskWork);
  const roots: ActorRecord[] = [];
  const effects: ActorRecord[] = [];
  let taskCount = 0;
  for (const record of tree.values()) {
    counts[record.kind]++;
    if (record.parent === undefined) roots.push(record);
    else if (record.kind === 'effect' || record.kind === 'other') effects.push(record);
    const session = record.session;
    if (session === undefined || (query.sessionId !== undefined && session !== query.sessionId)) continue;
    if (record.kind === 'session') tally(session).actor = record;
    else if (record.kind === 'task') {
      const t = tally(session);
      t.tasks++;
      if (isDue(record)) t.due++;
      if (earlier(record.target, t.next) < 0) t.next = record.target;
      if (query.text === undefined || record.searchText().includes(query.text)) {
        taskCount++;
        tasks.offer(record);
      }
    }
  }
  const sessions = new TopList<SessionTally>(query.sessions, bySessionWork);
  for (const t of tallies.values()) sessions.offer(t);
  const listed = sessions.toArray();

  const keep = new Set<string>();
  const shown: ActorRecord[] = [];
  const show = (record: ActorRecord | undefined): void => {
    for (let r = record; r !== undefined && !keep.has(r.key); r = r.parent === undefined ? undefined : tree.get(r.parent)) {
      keep.add(r.key);
      shown.push(r);
    }
  };
  for (const root of roots) show(root);
  for (const t of listed) show(t.actor);
  for (const task of tasks.toArray()) show(task);
  // Effects come after their parents in creation order, so one pass keeps nested ones too.
  for (const effect of effects) if (effect.parent !== undefined && keep.has(effect.parent)) show(effect);
  shown.sort((a, b) => a.order - b.order);

  // With a Session, only its entries: those a Session's subscriber is handed.
  const events = ring.toArray(
    (entry) =>
      (query.sessionId === undefined || entry.session === query.sessionId) &&
      (keep.has(entry.actorKey) ||
        (tree.get(entry.actorKey) === undefined &&
          selectsTask(query, { id: entry.actorId, ...(entry.session === undefined ? {} : { session: entry.session }) }))),
    query.limit,
  );
  const passive = passivated(sources.passive, query);
  return {
    seq: sources.seq,
    actors: shown.map((r) => r.toJSON()),
    events,
    sessions: listed.map(sessionView),
    sessionCount: tallies.size,
    taskCount,
    ...(passive.total === 0 ? {} : { passivated: passive.tasks, passivatedCount: passive.total }),
    counts,
    ring: { capacity: ring.capacity, dropped: ring.dropped },
  };
}

function sessionView(t: SessionTally): InspectedSession {
  const { actor } = t;
  return {
    sessionId: t.sessionId,
    ...(actor === undefined ? {} : { key: actor.key }),
    ...(actor?.state === undefined ? {} : { state: actor.state }),
    tasks: t.tasks,
    due: t.due,
    ...(t.next === undefined ? {} : { next: t.next }),
  };
}

function passivated(
  read: PassiveTasksReader | undefined,
  query: ResolvedQuery,
): { readonly tasks: readonly InspectedPassiveTask[]; readonly total: number } {
  if (read === undefined) return { tasks: [], total: 0 };
  const keep = query.text === undefined ? undefined : (task: InspectedPassiveTask) => selectsTask(query, task);
  const { tasks, total } = read(query.sessionId, query.tasks, keep);
  return { tasks: [...tasks], total };
}
