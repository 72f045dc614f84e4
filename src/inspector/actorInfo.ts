// Reading what the inspector keeps out of XState's inspection events. The events type actors as
// `ActorRefLike` and snapshots and contexts as unknown, so everything here narrows from `unknown`:
// the actor's id, parent and logic, a snapshot's value and status, a task row's Session, target
// and title, and the schedule Session an event to the supervisor concerns.
import type { StateValue } from 'xstate';
import type { InspectedActorKind, InspectedActorStatus, InspectedPassiveTask } from './types.ts';

type Bag = Readonly<Record<string, unknown>>;

const isBag = (value: unknown): value is Bag => typeof value === 'object' && value !== null;
const isFunctionOrBag = (value: unknown): value is Bag => isBag(value) || typeof value === 'function';
const stringAt = (bag: Bag, key: string): string | undefined => (typeof bag[key] === 'string' ? (bag[key] as string) : undefined);

/** What the inspector learns about an actor when it is created. */
export interface ActorIdentity {
  readonly key: string;
  readonly id: string;
  readonly kind: InspectedActorKind;
  readonly parent?: string;
  readonly session?: string;
  readonly src?: string;
}

const MACHINE_KINDS: Readonly<Record<string, InspectedActorKind>> = {
  supervisor: 'supervisor',
  sessionGroup: 'group',
  taskGroup: 'group',
  session: 'session',
  task: 'task',
};
const SESSION_ACTOR_PREFIX = 'session:';

/** The system-unique key of an actor reference (XState's `sessionId`). */
export function actorKey(ref: unknown): string | undefined {
  return isBag(ref) ? stringAt(ref, 'sessionId') : undefined;
}

/** Identifies an actor from its reference: id, parent, kind (from its logic) and, for effects, the logic's name. */
export function identifyActor(ref: unknown): ActorIdentity | undefined {
  if (!isBag(ref)) return undefined;
  const key = stringAt(ref, 'sessionId');
  if (key === undefined) return undefined;
  const parent = actorKey(ref._parent);
  const logic = ref.logic;
  const machineId = isFunctionOrBag(logic) && 'root' in logic ? stringAt(logic, 'id') : undefined;
  // A root created without an id is named by XState after its key; its machine's id reads better.
  const given = stringAt(ref, 'id');
  const id = given === undefined || given === key ? (machineId ?? key) : given;
  const kind: InspectedActorKind = machineId === undefined ? 'effect' : (MACHINE_KINDS[machineId] ?? 'other');
  const src = kind === 'effect' && typeof ref.src === 'string' ? ref.src : undefined;
  const session = kind === 'session' && id.startsWith(SESSION_ACTOR_PREFIX) ? id.slice(SESSION_ACTOR_PREFIX.length) : undefined;
  return {
    key,
    id,
    kind,
    ...(parent === undefined ? {} : { parent }),
    ...(session === undefined ? {} : { session }),
    ...(src === undefined ? {} : { src }),
  };
}

/** The parts of a snapshot the inspector keeps. */
export interface SnapshotFacts {
  readonly status: InspectedActorStatus;
  readonly value?: StateValue;
  readonly context?: unknown;
}

const STATUSES: readonly string[] = ['active', 'done', 'error', 'stopped'];

const isStateValue = (value: unknown): value is StateValue => typeof value === 'string' || isBag(value);

/** Status, state value (machines) and context of a snapshot. */
export function snapshotFacts(snapshot: unknown): SnapshotFacts {
  if (!isBag(snapshot)) return { status: 'active' };
  const raw = stringAt(snapshot, 'status');
  const status = raw !== undefined && STATUSES.includes(raw) ? (raw as InspectedActorStatus) : 'active';
  const value = isStateValue(snapshot.value) ? snapshot.value : undefined;
  return { status, ...(value === undefined ? {} : { value }), ...('context' in snapshot ? { context: snapshot.context } : {}) };
}

/** A task actor's context holds its task row: its Session, target and title. */
export function taskFacts(context: unknown): { session?: string; target?: string; title?: string } {
  if (!isBag(context) || !isBag(context.row)) return {};
  const row = context.row;
  const session = stringAt(row, 'sessionId');
  const record = isBag(row.record) ? row.record : undefined;
  const target = record === undefined ? undefined : stringAt(record, 'scheduledAt');
  const title = record === undefined ? undefined : stringAt(record, 'title');
  return {
    ...(session === undefined ? {} : { session }),
    ...(target === undefined ? {} : { target }),
    ...(title === undefined ? {} : { title }),
  };
}

/** The Session a Session actor's context names. */
export function contextSession(context: unknown): string | undefined {
  return isBag(context) ? stringAt(context, 'sessionId') : undefined;
}

/**
 * The schedule Session an event concerns, when it names one: `sessionId` on the event itself
 * (delivery results) or on a mailbox command's operation.
 */
export function eventSession(event: unknown): string | undefined {
  if (!isBag(event)) return undefined;
  const direct = stringAt(event, 'sessionId');
  if (direct !== undefined) return direct;
  // A Host's `schedule.call` names its Session in the call.
  if (isBag(event.call)) return stringAt(event.call, 'sessionId');
  const command = event.command;
  if (!isBag(command) || !isBag(command.operation)) return undefined;
  return stringAt(command.operation, 'sessionId');
}

/** An event's type, or `unknown` for a malformed one. */
export function eventType(event: unknown): string {
  return (isBag(event) ? stringAt(event, 'type') : undefined) ?? 'unknown';
}

/**
 * Reads the passivated tasks of one Session (or all) that `keep` accepts (all without it), at
 * most `max`, with how many there are.
 */
export type PassiveTasksReader = (
  sessionId: string | undefined,
  max: number,
  keep?: (task: InspectedPassiveTask) => boolean,
) => { readonly tasks: readonly InspectedPassiveTask[]; readonly total: number };

/**
 * The passivated tasks of a supervisor, read from its context's runtime handle when that handle
 * offers them (`passivatedTasks(sessionId, max, keep?)`); undefined otherwise.
 */
export function passiveTasksSource(context: unknown): PassiveTasksReader | undefined {
  if (!isBag(context) || !isBag(context.runtime)) return undefined;
  const runtime = context.runtime;
  const read = runtime.passivatedTasks;
  if (typeof read !== 'function') return undefined;
  return (sessionId, max, keep) => read.call(runtime, sessionId, max, keep) as ReturnType<PassiveTasksReader>;
}
