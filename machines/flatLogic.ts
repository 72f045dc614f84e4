// Fast actor logic for a flat machine: one whose states are all children of its root, atomic or
// final, without exit actions, invocations or delays, each transition guarded by a named guard (or
// none) and running named actions that update the context or send or emit events (effects). The guards,
// the context updates and the effects are plain functions given beside the machine, and the
// machine's `setup` takes them through `machineGuards`, `machineUpdates` and `machineEffects`, so
// both run the very same code. Events named as delegated (those whose actions spawn, stop or talk
// to the parent) take XState's own algorithm from the same snapshot.
//
// For such a machine XState's general algorithm — exit and entry sets, transition domains, a
// snapshot cloned per step — recomputes answers that never change, and it runs for every event of
// every task actor on every delivery. The logic made here is the machine itself with two methods
// replaced: `getInitialSnapshot` and `transition` look the enabled transition up in a table built
// once from the machine's state nodes and build the next snapshot from a template of the target
// state. The snapshots are the machine's own (value, context, status, `_nodes` and the machine's
// methods, so `matches`, `can`, persistence and inspection work unchanged); events the table does
// not name — `xstate.stop` and the other `xstate.*` events — go to the machine's own transition.
// What differs is only what is not computed: no `@xstate.microstep` or `@xstate.action` inspection
// events are emitted for the steps taken here (the actor's `@xstate.event` and `@xstate.snapshot`
// events, and the `@xstate.event` of every event an effect sends, with this actor as its source,
// are XState's).
//
// `flatMachineLogic` refuses, when it is made, a machine it cannot run exactly; a differential test
// checks it against XState's own transitions on every state and event.
import {
  type AnyActorRef,
  type AnyStateMachine,
  assign,
  type ContextFrom,
  type EventFromLogic,
  type EventObject,
  enqueueActions,
  type MachineContext,
  type StateNode,
} from 'xstate';

/** A guard as a plain predicate over the context and the event. */
export type Predicate<TContext, TEvent> = (context: TContext, event: TEvent) => boolean;

/** The members of a context an update changes (a member set to undefined is cleared). */
export type ContextPatch<TContext> = { [K in keyof TContext]?: TContext[K] | undefined };

/** A named action as a plain update: the members of the context it changes. */
export type Update<TContext, TEvent> = (context: TContext, event: TEvent) => ContextPatch<TContext>;

/**
 * Where an effect's events go: each is delivered once the step's snapshot is in place, in order,
 * as XState delivers `sendTo` and `emit` — a sent event to its target, an emitted one to the
 * actor's `on(type, …)` listeners, then to its parent's listener ({@link hearChildren}).
 */
export interface Outbox {
  send<E extends EventObject>(target: AnyActorRef, event: E): void;
  emit<E extends EventObject>(event: E): void;
}

/**
 * The one listener of a parent actor to what its children emit. XState hands an emitted event
 * only to listeners registered on the emitting actor (`actor.on`), a subscription (a set, a bound
 * handler and its closure) per child; a parent that hears every child through one entry here holds
 * one per parent instead, which matters when the children are thousands of task actors.
 */
const childListeners = new WeakMap<AnyActorRef, (event: EventObject) => void>();

/**
 * Hands every event a child of `parent` emits through an effect ({@link Outbox.emit}) to
 * `listener`: in a step of the flat logic after the child's own listeners (`actor.on`) have had it,
 * in XState's algorithm (the machine run as it is, or a delegated event) when the effect runs. One
 * listener per parent: a later call replaces it.
 */
export function hearChildren(parent: AnyActorRef, listener: (event: EventObject) => void): void {
  childListeners.set(parent, listener);
}

/** The emitting actor's parent's listener hears the event (if the actor has a parent that listens). */
function tellParent(self: AnyActorRef, event: EventObject): void {
  const parent = self._parent;
  if (parent !== undefined) childListeners.get(parent)?.(event);
}

/** What an effect reads: the context, the event, and the actor itself (its snapshot is the one before the step). */
export interface EffectArgs<TContext, TEvent> {
  readonly context: TContext;
  readonly event: TEvent;
  readonly self: AnyActorRef;
}

/** A named action that sends events through the outbox and may update the context (the members it returns). */
export type Effect<TContext, TEvent> = (args: EffectArgs<TContext, TEvent>, outbox: Outbox) => ContextPatch<TContext> | undefined;

/** What a flat machine does, beside its definition: its guards, context updates and effects, by name. */
export interface FlatBehaviour<TContext, TEvent> {
  readonly guards: Readonly<Record<string, Predicate<TContext, TEvent>>>;
  readonly updates: Readonly<Record<string, Update<TContext, TEvent>>>;
  readonly effects?: Readonly<Record<string, Effect<TContext, TEvent>>>;
  /** Event types whose transitions XState's own algorithm takes (their actions may be anything the machine allows). */
  readonly delegated?: readonly string[];
}

/** The predicates as XState guards, for the machine's `setup`. */
export function machineGuards<TContext, TEvent, G extends Record<string, Predicate<TContext, TEvent>>>(
  guards: G,
): { [K in keyof G]: (args: { context: TContext; event: TEvent }) => boolean } {
  const out: Record<string, (args: { context: TContext; event: TEvent }) => boolean> = {};
  for (const [name, predicate] of Object.entries(guards)) out[name] = ({ context, event }) => predicate(context, event);
  return out as { [K in keyof G]: (args: { context: TContext; event: TEvent }) => boolean };
}

/** The updates as XState `assign` actions, for the machine's `setup`. */
export function machineUpdates<
  TContext extends MachineContext,
  TEvent extends EventObject,
  U extends Record<string, Update<TContext, TEvent>>,
>(updates: U): { [K in keyof U]: ReturnType<typeof assign<TContext, TEvent, undefined, TEvent, never>> } {
  const out: Record<string, ReturnType<typeof assign<TContext, TEvent, undefined, TEvent, never>>> = {};
  for (const [name, update] of Object.entries(updates)) {
    out[name] = assign<TContext, TEvent, undefined, TEvent, never>(({ context, event }) => update(context, event));
  }
  return out as { [K in keyof U]: ReturnType<typeof assign<TContext, TEvent, undefined, TEvent, never>> };
}

/**
 * The effects as XState actions, for the machine's `setup`: sends become `enqueue.sendTo`, emits
 * `enqueue.emit` (of the machine's emitted events, `TEmitted`), a returned patch `enqueue.assign`.
 */
export function machineEffects<
  TContext extends MachineContext,
  TEvent extends EventObject,
  E extends Record<string, Effect<TContext, TEvent>>,
  TEmitted extends EventObject = never,
>(
  effects: E,
): { [K in keyof E]: ReturnType<typeof enqueueActions<TContext, TEvent, undefined, TEvent, never, never, never, never, TEmitted>> } {
  const out: Record<
    string,
    ReturnType<typeof enqueueActions<TContext, TEvent, undefined, TEvent, never, never, never, never, TEmitted>>
  > = {};
  for (const [name, effect] of Object.entries(effects)) {
    out[name] = enqueueActions<TContext, TEvent, undefined, TEvent, never, never, never, never, TEmitted>(
      ({ context, event, self, enqueue }) => {
        const outbox: Outbox = {
          send: (target, sent) => enqueue.sendTo(target, sent),
          emit: (emitted) => {
            enqueue.emit(emitted as unknown as TEmitted);
            enqueue(() => tellParent(self, emitted));
          },
        };
        const patch = effect({ context, event, self }, outbox);
        if (patch !== undefined) enqueue.assign(patch as Partial<TContext>);
      },
    );
  }
  return out as {
    [K in keyof E]: ReturnType<typeof enqueueActions<TContext, TEvent, undefined, TEvent, never, never, never, never, TEmitted>>;
  };
}

/** A named action, compiled: a plain update or an effect. */
type FlatAction<TContext, TEvent> =
  | { readonly update: Update<TContext, TEvent>; readonly effect?: undefined }
  | { readonly effect: Effect<TContext, TEvent>; readonly update?: undefined };

/** One candidate transition of a state, in document order. */
interface Candidate<TContext, TEvent> {
  readonly guard: Predicate<TContext, TEvent> | undefined;
  /** The target state's key; undefined for a transition that stays. */
  readonly target: string | undefined;
  readonly actions: readonly FlatAction<TContext, TEvent>[];
}

/** What a snapshot of one state holds besides its context. */
interface StateTemplate {
  readonly value: unknown;
  readonly _nodes: unknown;
  readonly tags: unknown;
  readonly done: boolean;
}

/** A state's transitions by event type, its eventless ones, its entry actions and its snapshot template. */
interface CompiledState<TContext, TEvent> {
  readonly on: ReadonlyMap<string, readonly Candidate<TContext, TEvent>[]>;
  readonly always: readonly Candidate<TContext, TEvent>[];
  readonly entry: readonly FlatAction<TContext, TEvent>[];
  readonly template: StateTemplate;
}

/** What a step needs of the actor: itself, the deferral of sends, its listeners and its system. */
interface StepScope {
  readonly self: AnyActorRef;
  readonly defer: (fn: () => void) => void;
  readonly emit: (event: EventObject) => void;
  readonly system: unknown;
}

/** The members of a machine snapshot, as XState lays them out (so snapshots share one shape). */
interface FlatSnapshot<TContext> {
  readonly status: 'active' | 'done';
  readonly output: undefined;
  readonly error: undefined;
  readonly machine: AnyStateMachine;
  readonly context: TContext;
  readonly _nodes: unknown;
  readonly value: unknown;
  readonly tags: unknown;
  readonly children: unknown;
  readonly historyValue: unknown;
  readonly matches: unknown;
  readonly hasTag: unknown;
  readonly can: unknown;
  readonly getMeta: unknown;
  readonly toJSON: unknown;
}

/** What sends an event with its source recorded: the actor system's relay (an XState internal). */
type Relay = (source: AnyActorRef, target: AnyActorRef, event: EventObject) => void;

/**
 * The outbox of one effect: its sends and emits are delivered in order by one deferred call, once
 * the actor has taken the step's snapshot (each effect's after the previous effect's, as XState
 * runs them). The actor system's relay records the sender in the `@xstate.event` inspection event,
 * as XState's own `sendTo` does; a system without it (none is known) gets the plain send. An
 * emitted event goes to the actor's listeners, as XState's `emit` does, then to its parent's ({@link hearChildren}).
 */
class StepOutbox implements Outbox {
  /** Targets (null for an emit) and events, alternating; undefined until the first one. */
  private sends: Array<AnyActorRef | EventObject | null> | undefined;

  constructor(private readonly scope: StepScope) {}

  send<E extends EventObject>(target: AnyActorRef, event: E): void {
    this.push(target, event);
  }

  emit<E extends EventObject>(event: E): void {
    this.push(null, event);
  }

  private push(target: AnyActorRef | null, event: EventObject): void {
    if (this.sends === undefined) {
      this.sends = [];
      this.scope.defer(() => this.deliver());
    }
    this.sends.push(target, event);
  }

  private deliver(): void {
    const sends = this.sends ?? [];
    const relay = (this.scope.system as { _relay?: Relay } | undefined)?._relay;
    for (let i = 0; i < sends.length; i += 2) {
      const target = sends[i] as AnyActorRef | null;
      const event = sends[i + 1] as EventObject;
      if (target === null) {
        this.scope.emit(event);
        tellParent(this.scope.self, event);
      } else if (relay === undefined) target.send(event);
      else relay(this.scope.self, target, event);
    }
  }
}

/** Why `flatMachineLogic` cannot run a machine exactly. */
export class NotFlatError extends Error {
  constructor(machineId: string, reason: string) {
    super(`The machine '${machineId}' is not flat: ${reason}`);
    this.name = 'NotFlatError';
  }
}

type AnyNode = StateNode<MachineContext, EventObject>;

function checkPlain(machine: AnyStateMachine, node: AnyNode, where: string): void {
  const fail = (what: string) => {
    throw new NotFlatError(machine.id, `${where} ${what}`);
  };
  // Delayed transitions are entry and exit actions too: they are named first.
  if (node.after.length > 0) fail('has delayed transitions');
  if (node.exit.length > 0 || (node === machine.root && node.entry.length > 0)) fail('has exit actions or root entry actions');
  if (node.invoke.length > 0) fail('invokes actors');
  if (node !== machine.root && Object.keys(node.states).length > 0) fail('has child states');
}

function compileAction<TContext, TEvent>(
  behaviour: FlatBehaviour<TContext, TEvent>,
  action: unknown,
  fail: (what: string) => never,
): FlatAction<TContext, TEvent> {
  if (typeof action !== 'string') fail('an action that is not named');
  const update = behaviour.updates[action as string];
  if (update !== undefined) return { update };
  const effect = behaviour.effects?.[action as string];
  if (effect !== undefined) return { effect };
  return fail(`the action '${String(action)}' is not among the given updates or effects`);
}

function compileCandidates<TContext, TEvent>(
  machine: AnyStateMachine,
  behaviour: FlatBehaviour<TContext, TEvent>,
  transitions: readonly {
    readonly guard?: unknown;
    readonly target: readonly AnyNode[] | undefined;
    readonly actions: readonly unknown[];
    readonly eventType: string;
  }[],
  where: string,
  ownKey?: string,
): Candidate<TContext, TEvent>[] {
  return transitions.map((t) => {
    const fail = (what: string): never => {
      throw new NotFlatError(machine.id, `${where}, on '${t.eventType}': ${what}`);
    };
    let guard: Predicate<TContext, TEvent> | undefined;
    if (t.guard !== undefined) {
      if (typeof t.guard !== 'string') fail('a guard that is not named (inline, parameterised or combined)');
      guard = behaviour.guards[t.guard as string];
      if (guard === undefined) fail(`the guard '${String(t.guard)}' is not among the given predicates`);
    }
    const actions = t.actions.map((action) => compileAction(behaviour, action, fail));
    if (t.target !== undefined && t.target.length > 1) fail('more than one target');
    const target = t.target?.[0];
    if (target !== undefined && target.parent !== machine.root) fail('a target that is not a state of the root');
    // Whether XState exits and re-enters a state a transition targets while in it depends on
    // where the transition is declared and on `reenter`: refused rather than guessed.
    if (target !== undefined && target.entry.length > 0 && (where === 'its root' || target.key === ownKey))
      fail(`a transition that may re-enter '${target.key}', which has entry actions`);
    return { guard, target: target?.key, actions };
  });
}

/**
 * The machine as fast actor logic (see above). Throws `NotFlatError` when the machine is not
 * flat: a nested, invoking or delayed state, exit actions, entry actions a transition might
 * re-run, a wildcard event, a guard or an action (outside the delegated events) that is not one of
 * `behaviour`'s, or output.
 */
export function flatMachineLogic<TMachine extends AnyStateMachine>(
  machine: TMachine,
  behaviour: FlatBehaviour<ContextFrom<TMachine>, EventFromLogic<TMachine>>,
): TMachine {
  type TContext = ContextFrom<TMachine>;
  type TEvent = EventFromLogic<TMachine>;
  const root = machine.root as AnyNode;
  checkPlain(machine, root, 'its root');
  if (root.always !== undefined) throw new NotFlatError(machine.id, 'its root has eventless transitions');
  if (root.output !== undefined) throw new NotFlatError(machine.id, 'it has output');
  const delegated = new Set(behaviour.delegated ?? []);
  const rootOn = new Map<string, Candidate<TContext, TEvent>[]>();
  for (const [type, transitions] of root.transitions) {
    if (!delegated.has(type)) rootOn.set(type, compileCandidates(machine, behaviour, transitions, 'its root'));
  }

  const states = new Map<string, CompiledState<TContext, TEvent>>();
  for (const [key, node] of Object.entries(root.states) as [string, AnyNode][]) {
    const where = `its state '${key}'`;
    checkPlain(machine, node, where);
    if (node.type !== 'atomic' && node.type !== 'final') throw new NotFlatError(machine.id, `${where} is a ${node.type} state`);
    const on = new Map<string, Candidate<TContext, TEvent>[]>();
    for (const [type, transitions] of node.transitions) {
      if (!delegated.has(type)) on.set(type, compileCandidates(machine, behaviour, transitions, where, key));
    }
    // An event the state does not take is looked up on the root, as XState does; one the state
    // takes with no enabled transition falls through to the root's too.
    for (const [type, candidates] of rootOn) on.set(type, [...(on.get(type) ?? []), ...candidates]);
    for (const type of on.keys()) {
      if (type.includes('*')) throw new NotFlatError(machine.id, `${where} takes the wildcard event '${type}'`);
    }
    const always = compileCandidates(machine, behaviour, node.always ?? [], `${where} (eventless)`, key);
    const entry = node.entry.map((action) =>
      compileAction(behaviour, action, (what): never => {
        throw new NotFlatError(machine.id, `${where}, on entry: ${what}`);
      }),
    );
    const resolved = machine.resolveState({ value: key, context: {} as TContext });
    states.set(key, {
      on,
      always,
      entry,
      template: {
        value: resolved.value,
        _nodes: (resolved as unknown as { _nodes: unknown })._nodes,
        tags: resolved.tags,
        done: node.type === 'final',
      },
    });
  }
  const initial = root.initial?.target[0]?.key;
  if (initial === undefined || !states.has(initial)) throw new NotFlatError(machine.id, 'it has no initial state of its root');
  const contextOf = machine.config.context;
  const methods = machine.resolveState({ value: initial, context: {} as TContext }) as unknown as FlatSnapshot<TContext>;

  const snapshotOf = (key: string, context: TContext, previous: FlatSnapshot<TContext> | undefined): FlatSnapshot<TContext> => {
    const template = (states.get(key) as CompiledState<TContext, TEvent>).template;
    return {
      status: template.done ? 'done' : 'active',
      output: undefined,
      error: undefined,
      machine,
      context,
      _nodes: template._nodes,
      value: template.value,
      tags: template.tags,
      children: previous?.children ?? {},
      historyValue: previous?.historyValue ?? {},
      matches: methods.matches,
      hasTag: methods.hasTag,
      can: methods.can,
      getMeta: methods.getMeta,
      toJSON: methods.toJSON,
    };
  };

  /** Runs named actions in order over the context; effects send through the step's outbox. */
  const run = (actions: readonly FlatAction<TContext, TEvent>[], context: TContext, event: TEvent, scope: StepScope): TContext => {
    let next = context;
    for (const action of actions) {
      const patch =
        action.update !== undefined
          ? action.update(next, event)
          : action.effect({ context: next, event, self: scope.self }, new StepOutbox(scope));
      if (patch !== undefined) next = Object.assign({}, next, patch);
    }
    return next;
  };

  /** Takes the first enabled candidate, if any: the next snapshot, or undefined when none is enabled. */
  const take = (
    candidates: readonly Candidate<TContext, TEvent>[] | undefined,
    snapshot: FlatSnapshot<TContext>,
    event: TEvent,
    scope: StepScope,
  ): FlatSnapshot<TContext> | undefined => {
    if (candidates === undefined) return undefined;
    const context = snapshot.context;
    for (const candidate of candidates) {
      if (candidate.guard !== undefined && !candidate.guard(context, event)) continue;
      let next = candidate.actions.length === 0 ? context : run(candidate.actions, context, event, scope);
      if ((candidate.target === undefined || candidate.target === snapshot.value) && next === context) return snapshot;
      const target = candidate.target ?? (snapshot.value as string);
      if (target !== snapshot.value) {
        const entry = (states.get(target) as CompiledState<TContext, TEvent>).entry;
        if (entry.length > 0) next = run(entry, next, event, scope);
      }
      return snapshotOf(target, next, snapshot);
    }
    return undefined;
  };

  /** The eventless transitions after a step, until none is enabled or one changes nothing. */
  const settle = (snapshot: FlatSnapshot<TContext>, event: TEvent, scope: StepScope): FlatSnapshot<TContext> => {
    let current = snapshot;
    while (current.status === 'active') {
      const always = (states.get(current.value as string) as CompiledState<TContext, TEvent>).always;
      if (always.length === 0) break;
      const next = take(always, current, event, scope);
      if (next === undefined || next === current) break;
      current = next;
    }
    return current;
  };

  const transition = machine.transition.bind(machine);
  const spawn = () => {
    throw new NotFlatError(machine.id, 'its context spawns actors');
  };
  return Object.create(machine, {
    getInitialSnapshot: {
      value: (actorScope: StepScope, input: unknown) => {
        try {
          const context = (
            typeof contextOf === 'function' ? contextOf({ input, self: actorScope.self, spawn }) : (contextOf ?? {})
          ) as TContext;
          const init = { type: 'xstate.init', input } as TEvent;
          const entry = (states.get(initial) as CompiledState<TContext, TEvent>).entry;
          const entered = entry.length === 0 ? context : run(entry, context, init, actorScope);
          return settle(snapshotOf(initial, entered, undefined), init, actorScope);
        } catch (error) {
          return { ...snapshotOf(initial, {} as TContext, undefined), status: 'error', error };
        }
      },
    },
    transition: {
      value: (snapshot: FlatSnapshot<TContext>, event: TEvent, actorScope: StepScope) => {
        const type = (event as EventObject).type;
        if (snapshot.status !== 'active' || type.startsWith('xstate.') || delegated.has(type)) {
          return transition(snapshot as never, event, actorScope as never);
        }
        const state = states.get(snapshot.value as string) as CompiledState<TContext, TEvent>;
        return settle(take(state.on.get(type), snapshot, event, actorScope) ?? snapshot, event, actorScope);
      },
    },
  }) as TMachine;
}
