// The shapes the schedule inspector hands out: one record per live actor (the actor tree, kept
// flat with parent links), one entry per recorded inspection event (the ring of recent events),
// the view that `snapshot()` serialises, and the updates a subscriber receives. Plain data only:
// no actor references, no event payloads, so the view stays small and can cross a wire.
// The shapes below are declared without XState's types, so that the package's main declarations
// never load XState's (see src/domain/serviceOptions.ts).

/** An actor's state: a state name, or an object of nested regions (XState's `StateValue`). */
export type InspectedStateValue = string | { readonly [region: string]: InspectedStateValue | undefined };

/** What an actor is in the schedule's actor system (a `group` holds Session actors or task actors). */
export type InspectedActorKind = 'supervisor' | 'group' | 'session' | 'task' | 'effect' | 'other';

/** An actor's status, as XState reports it. */
export type InspectedActorStatus = 'active' | 'done' | 'error' | 'stopped';

/** One live actor of the tree. */
export interface InspectedActor {
  /** XState's system-unique key of the actor (its `sessionId`, e.g. `x:3`). */
  readonly key: string;
  /** The actor's id under its parent: `supervisor`, `session:<Session id>`, a task id, or an invoke id. */
  readonly id: string;
  readonly kind: InspectedActorKind;
  /** The parent's key; absent for a root. */
  readonly parent?: string;
  /** The schedule Session the actor belongs to (Session actors, tasks and their effects). */
  readonly session?: string;
  /** The current state value (machines only). */
  readonly state?: InspectedStateValue;
  readonly status: InspectedActorStatus;
  /** The type of the last event the actor processed. */
  readonly lastEvent?: string;
  /** Tasks: the committed next target (`record.scheduledAt`). */
  readonly target?: string;
  /** Tasks: the record's title. */
  readonly title?: string;
  /** Effects: the name of the provided actor logic (`attemptRunner`, `openDomain`, …). */
  readonly src?: string;
}

/**
 * An active task kept only as its row (passivated: due beyond the service's horizon, or paused):
 * it has no actor until it nears its due instant.
 */
export interface InspectedPassiveTask {
  readonly id: string;
  /** The schedule Session the task belongs to. */
  readonly session: string;
  readonly state: 'passivated';
  /** The committed next target (`record.scheduledAt`). */
  readonly target: string;
  readonly title: string;
}

/** Which inspection events the ring can hold (the `@xstate.` prefix dropped). */
export type InspectorEntryType = 'actor' | 'event' | 'snapshot' | 'microstep' | 'action';

/** One recorded inspection event. */
export interface InspectorEntry {
  /** Increases by one per recorded entry, across resets too. */
  readonly seq: number;
  /** When it was recorded (the inspector's clock, epoch ms). */
  readonly at: number;
  readonly type: InspectorEntryType;
  readonly actorKey: string;
  readonly actorId: string;
  readonly kind: InspectedActorKind;
  /** The schedule Session the entry concerns, when known. */
  readonly session?: string;
  /** `event`, `snapshot`, `microstep`: the event's type. */
  readonly event?: string;
  /** `event`: the sender's actor id (absent for events sent from outside the system). */
  readonly source?: string;
  /** `snapshot`, `microstep`: the state value after the event. */
  readonly state?: InspectedStateValue;
  /** `snapshot`: the status after the event. */
  readonly status?: InspectedActorStatus;
  /** `action`: the action's type. */
  readonly action?: string;
}

/** Narrows a view or a subscription to one schedule Session. */
export interface InspectorFilter {
  /** Only this Session's actors (with their ancestors, so the tree stays connected) and entries. */
  readonly sessionId?: string;
  /** At most this many of the newest entries. */
  readonly limit?: number;
}

/** What `view()` returns and `snapshot()` serialises. */
export interface InspectorView {
  /** Live actors, parents before children, in creation order. */
  readonly actors: readonly InspectedActor[];
  /** Recent entries, oldest first. */
  readonly events: readonly InspectorEntry[];
  /** Passivated tasks (present when there are any): at most 1,000 of them, in no set order. */
  readonly passivated?: readonly InspectedPassiveTask[];
  /** How many tasks are passivated (of the filter's Session), with `passivated`. */
  readonly passivatedCount?: number;
  /** Live actors by kind (before filtering). */
  readonly counts: Readonly<Record<InspectedActorKind, number>>;
  /** Ring size and how many entries it has dropped since the last reset. */
  readonly ring: { readonly capacity: number; readonly dropped: number };
}

/** What a subscriber receives. */
export type InspectorUpdate =
  /** A recorded entry, with its actor as it is after the entry (absent once the actor is gone). */
  | { readonly type: 'entry'; readonly entry: InspectorEntry; readonly actor?: InspectedActor }
  /** Actors dropped without entries of their own (the tree of a closed service). */
  | { readonly type: 'removed'; readonly keys: readonly string[] }
  /** Everything was cleared (`reset()`). */
  | { readonly type: 'reset' };

/**
 * What a bounded {@link InspectorSummary} shows: the Session filter and entry limit of
 * {@link InspectorFilter}, a task text filter, and how many Sessions and tasks are listed.
 */
export interface InspectorQuery extends InspectorFilter {
  /** Only tasks whose id, title or Session contains this text (case-insensitive). */
  readonly text?: string;
  /** How many Sessions are listed, those with the most due work first (default 50, at most 500). */
  readonly sessions?: number;
  /** How many tasks are listed, due ones first, then by next target (default 100, at most 1,000). */
  readonly tasks?: number;
}

/** One Session with live actors, as the summary ranks it. */
export interface InspectedSession {
  readonly sessionId: string;
  /** Its Session actor's key, while it has one. */
  readonly key?: string;
  /** Its Session actor's state (`idle`, `delivering`, …). */
  readonly state?: InspectedStateValue;
  /** Its live task actors. */
  readonly tasks: number;
  /** Those of its task actors with due work: overdue, delivering or retrying. */
  readonly due: number;
  /** The earliest next target among its live tasks. */
  readonly next?: string;
}

/**
 * A bounded view of the actor system, whatever its size: the supervisors and their effects, the
 * top Sessions by due work, the tasks the query selects (each with its ancestors, so the tree
 * stays connected), the recent entries of those actors, and counts of the rest.
 */
export interface InspectorSummary {
  /** The newest entry's `seq` when the summary was taken: later entries are not reflected in it. */
  readonly seq: number;
  /** The actors in view, parents before children, in creation order. */
  readonly actors: readonly InspectedActor[];
  /**
   * Recent entries (oldest first, at most `limit`) of the actors in view and of gone actors the
   * query matches; with `sessionId`, only that Session's.
   */
  readonly events: readonly InspectorEntry[];
  /** The listed Sessions, most due work first (then earliest next target, most tasks, id). */
  readonly sessions: readonly InspectedSession[];
  /** How many Sessions have live actors (of the query's Session). */
  readonly sessionCount: number;
  /** How many live task actors the query selects; `actors` holds at most `query.tasks` of them. */
  readonly taskCount: number;
  /** Passivated tasks the query selects, at most `query.tasks` (present when there are any). */
  readonly passivated?: readonly InspectedPassiveTask[];
  /** How many passivated tasks the query selects, with `passivated`. */
  readonly passivatedCount?: number;
  /** Live actors by kind (before filtering). */
  readonly counts: Readonly<Record<InspectedActorKind, number>>;
  readonly ring: { readonly capacity: number; readonly dropped: number };
}
