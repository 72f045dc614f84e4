// The live inspector: plugged into the service's `inspect` option, it follows XState's inspection
// events (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`, `@xstate.microstep`,
// `@xstate.action`) and keeps the live actor tree — supervisor, Session actors, task actors and
// the effects they run — with each actor's state, status and last event (and a task's target and
// title), plus a bounded ring of recent entries. Passivated tasks — active tasks kept only as
// their row — have no actor; the view lists them apart, read from the supervisor's runtime. Views are filtered by Session, serialised with
// superjson, and streamed to subscribers as updates. A view lists every live actor; a summary
// (inspectorSummary.ts) lists a bounded few however many there are, for a schedule of 100k tasks.
// A closed service's supervisor is not torn down actor by actor, so when it reaches `closed` its
// descendants are dropped here; `reset()` clears everything and `detach()` stops recording.
// superjson is loaded on the first view serialised, not with the package: a Host that never asks
// for one does not pay for it at start (`require`, as Node 20.19 and later load an ES module).
import { createRequire } from 'node:module';
import type superjsonApi from 'superjson';
import type { SuperJSONResult } from 'superjson';
import type { InspectionEvent, StateValue } from 'xstate';
import type { ScheduleInspectionEvent } from '../domain/serviceOptions.ts';
import {
  actorKey,
  contextSession,
  eventSession,
  eventType,
  identifyActor,
  type PassiveTasksReader,
  passiveTasksSource,
  snapshotFacts,
  taskFacts,
} from './actorInfo.ts';
import { type ActorRecord, ActorTree } from './actorTree.ts';
import { EventRing } from './eventRing.ts';
import { resolveQuery, summarise } from './inspectorSummary.ts';
import type {
  InspectedActor,
  InspectorEntry,
  InspectorEntryType,
  InspectorFilter,
  InspectorQuery,
  InspectorSummary,
  InspectorUpdate,
  InspectorView,
} from './types.ts';

export interface ScheduleInspectorOptions {
  /** How many recent entries the ring keeps. Default 500. */
  readonly capacity?: number;
  /** Which inspection events become entries. Default `actor`, `event` and `snapshot` (microsteps and actions are many). */
  readonly record?: readonly InspectorEntryType[];
  /** Timestamps entries; pass the service's clock for reproducible times. Default `Date.now`. */
  readonly now?: () => number;
  /** Receives errors thrown by subscribers or met while reading an event; they never reach XState. Default `console.error`. */
  readonly onError?: (error: unknown) => void;
}

/** A live view of a schedule service's actor system; see {@link createScheduleInspector}. */
export interface ScheduleInspector {
  /** Pass as `createScheduleService({ inspect: inspector.inspect })`. */
  readonly inspect: (event: ScheduleInspectionEvent) => void;
  /** The live actors (parents first); with `sessionId`, that Session's actors and their ancestors. */
  actors(filter?: InspectorFilter): InspectedActor[];
  /** The recorded entries, oldest first, optionally for one Session and at most `limit` of the newest. */
  events(filter?: InspectorFilter): InspectorEntry[];
  /** Actors, entries, counts and ring size in one plain value. It lists every live actor: at scale, use {@link summary}. */
  view(filter?: InspectorFilter): InspectorView;
  /**
   * A bounded view, however many actors live: the supervisors and their effects, the Sessions with
   * the most due work (`query.sessions`, default 50), the tasks the query selects (`query.tasks`,
   * default 100; due first, then by next target), each with its ancestors, their recent entries,
   * and counts of the rest. One pass over the live actors; calls with the same query between two
   * inspection events share one result.
   */
  summary(query?: InspectorQuery): InspectorSummary;
  /** {@link view} as superjson text (what `GET /api/inspect` can answer). */
  snapshot(filter?: InspectorFilter): string;
  /** The unfiltered view in superjson's wire form (`{ json, meta }`), so `JSON.stringify(inspector)` works. */
  toJSON(): SuperJSONResult;
  /** Calls `listener` for every update (only the Session's entries with `filter.sessionId`); returns the unsubscribe function. */
  subscribe(listener: (update: InspectorUpdate) => void, filter?: Pick<InspectorFilter, 'sessionId'>): () => void;
  /** Forgets every actor and entry (for example after the service was closed); subscribers get a `reset` update. */
  reset(): void;
  /** Stops recording for good and drops subscribers; `inspect` becomes a no-op. */
  detach(): void;
}

const DEFAULT_CAPACITY = 500;
/** How many passivated tasks a view lists at most (a schedule may hold a million). */
const MAX_PASSIVATED_LISTED = 1_000;
const DEFAULT_RECORD: readonly InspectorEntryType[] = ['actor', 'event', 'snapshot'];

const sameValue = (a: StateValue | undefined, b: StateValue | undefined): boolean =>
  a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));

const require = createRequire(import.meta.url);
let loaded: typeof superjsonApi | undefined;
const superjson = (): typeof superjsonApi => (loaded ??= (require('superjson') as { default: typeof superjsonApi }).default);

/** Parses what {@link ScheduleInspector.snapshot} produced. */
export const parseInspectorSnapshot = (text: string): InspectorView => superjson().parse<InspectorView>(text);

/** Creates an inspector; hand its `inspect` to `createScheduleService`. */
export function createScheduleInspector(options: ScheduleInspectorOptions = {}): ScheduleInspector {
  const ring = new EventRing<InspectorEntry>(options.capacity ?? DEFAULT_CAPACITY);
  const recorded = new Set(options.record ?? DEFAULT_RECORD);
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error: unknown) => console.error('schedule inspector:', error));
  const tree = new ActorTree();
  const listeners = new Map<(update: InspectorUpdate) => void, string | undefined>();
  let seq = 0;
  let attached = true;
  /** Summaries taken since the last inspection event, by query. */
  const summaries = new Map<string, InspectorSummary>();
  /** Reads the passivated tasks of the inspected supervisor (while it runs). */
  let passiveTasks: PassiveTasksReader | undefined;

  function publish(update: InspectorUpdate, session?: string): void {
    for (const [listener, wanted] of [...listeners]) {
      if (update.type === 'entry' && wanted !== undefined && wanted !== session) continue;
      try {
        listener(update);
      } catch (error) {
        onError(error);
      }
    }
  }

  function record(actor: ActorRecord, type: InspectorEntryType, fields: Partial<InspectorEntry>, session = actor.session): void {
    const entry: InspectorEntry = {
      seq: ++seq,
      at: now(),
      type,
      actorKey: actor.key,
      actorId: actor.id,
      kind: actor.kind,
      ...(session === undefined ? {} : { session }),
      ...fields,
    };
    ring.push(entry);
    if (listeners.size === 0) return;
    const live = tree.get(actor.key);
    publish(live === undefined ? { type: 'entry', entry } : { type: 'entry', entry, actor: live.toJSON() }, session);
  }

  /**
   * The actor's record. An actor the tree does not know (one created before a reset, or one
   * already gone) is described for the entry but joins the tree only through an active snapshot.
   */
  function recordFor(ref: unknown, join: boolean): ActorRecord | undefined {
    const key = actorKey(ref);
    if (key === undefined) return undefined;
    const known = tree.get(key);
    if (known !== undefined) return known;
    const identity = identifyActor(ref);
    if (identity === undefined) return undefined;
    return join ? tree.add(identity) : tree.describe(identity);
  }

  function onSnapshot(event: Extract<InspectionEvent, { type: '@xstate.snapshot' }>): void {
    const facts = snapshotFacts(event.snapshot);
    const actor = recordFor(event.actorRef, facts.status === 'active');
    if (actor === undefined) return;
    const before = { state: actor.state, status: actor.status };
    actor.status = facts.status;
    actor.lastEvent = eventType(event.event);
    if (facts.value !== undefined) actor.state = facts.value;
    if (actor.kind === 'task') {
      const task = taskFacts(facts.context);
      if (task.session !== undefined) actor.session = task.session;
      actor.target = task.target;
      actor.title = task.title;
    } else if (actor.kind === 'session' && actor.session === undefined) {
      actor.session = contextSession(facts.context);
    } else if (actor.kind === 'supervisor') {
      passiveTasks = facts.status === 'active' && actor.state !== 'closed' ? passiveTasksSource(facts.context) : undefined;
    }
    if (facts.status !== 'active') tree.remove(actor.key);
    const changed = before.status !== actor.status || !sameValue(before.state, actor.state);
    if (changed && recorded.has('snapshot')) {
      record(actor, 'snapshot', {
        event: actor.lastEvent,
        status: actor.status,
        ...(actor.state === undefined ? {} : { state: actor.state }),
      });
    }
    if (actor.kind === 'supervisor' && (actor.state === 'closed' || facts.status !== 'active')) {
      const removed = tree.removeDescendants(actor.key);
      if (removed.length > 0 && listeners.size > 0) publish({ type: 'removed', keys: removed });
    }
  }

  function handle(event: InspectionEvent): void {
    switch (event.type) {
      case '@xstate.actor': {
        const identity = identifyActor(event.actorRef);
        if (identity === undefined) return;
        const actor = tree.add(identity);
        if (recorded.has('actor')) record(actor, 'actor', {});
        return;
      }
      case '@xstate.event': {
        if (!recorded.has('event')) return;
        const actor = recordFor(event.actorRef, false);
        if (actor === undefined) return;
        // The actor has received it: its row shows it at once, even when its state does not change.
        actor.lastEvent = eventType(event.event);
        const source = event.sourceRef === undefined ? undefined : tree.get(actorKey(event.sourceRef) ?? '')?.id;
        record(
          actor,
          'event',
          { event: eventType(event.event), ...(source === undefined ? {} : { source }) },
          actor.session ?? eventSession(event.event),
        );
        return;
      }
      case '@xstate.snapshot':
        onSnapshot(event);
        return;
      case '@xstate.microstep': {
        if (!recorded.has('microstep')) return;
        const actor = recordFor(event.actorRef, false);
        const value = snapshotFacts(event.snapshot).value;
        if (actor !== undefined)
          record(actor, 'microstep', { event: eventType(event.event), ...(value === undefined ? {} : { state: value }) });
        return;
      }
      case '@xstate.action': {
        if (!recorded.has('action')) return;
        const actor = recordFor(event.actorRef, false);
        if (actor !== undefined) record(actor, 'action', { action: event.action.type });
        return;
      }
      default:
        return;
    }
  }

  const events = (filter: InspectorFilter = {}): InspectorEntry[] => {
    const { sessionId, limit } = filter;
    return ring.toArray(sessionId === undefined ? undefined : (entry) => entry.session === sessionId, limit);
  };

  const view = (filter: InspectorFilter = {}): InspectorView => {
    const passive = passiveTasks?.(filter.sessionId, MAX_PASSIVATED_LISTED) ?? { tasks: [], total: 0 };
    return {
      actors: tree.list(filter.sessionId),
      events: events(filter),
      ...(passive.total === 0 ? {} : { passivated: [...passive.tasks], passivatedCount: passive.total }),
      counts: tree.counts(),
      ring: { capacity: ring.capacity, dropped: ring.dropped },
    };
  };

  return {
    inspect(event) {
      if (!attached) return;
      summaries.clear();
      try {
        // Only XState calls this, with its own InspectionEvent values.
        handle(event as InspectionEvent);
      } catch (error) {
        onError(error);
      }
    },
    actors: (filter = {}) => tree.list(filter.sessionId),
    events,
    view,
    snapshot: (filter) => superjson().stringify(view(filter)),
    summary(query) {
      const resolved = resolveQuery(query);
      const key = JSON.stringify(resolved);
      let summary = summaries.get(key);
      if (summary === undefined) {
        summary = summarise({ tree, ring, passive: passiveTasks, seq }, resolved);
        summaries.set(key, summary);
      }
      return summary;
    },
    toJSON: () => superjson().serialize(view()),
    subscribe(listener, filter) {
      if (attached) listeners.set(listener, filter?.sessionId);
      return () => {
        listeners.delete(listener);
      };
    },
    reset() {
      summaries.clear();
      passiveTasks = undefined;
      tree.clear();
      ring.clear();
      publish({ type: 'reset' });
    },
    detach() {
      attached = false;
      summaries.clear();
      passiveTasks = undefined;
      tree.clear();
      ring.clear();
      listeners.clear();
    },
  };
}
