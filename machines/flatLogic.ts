// Fast actor logic for a flat machine: one whose states are all children of its root, atomic or
// final, without entry or exit actions, invocations or delays, each transition guarded by a named
// guard (or none) and running named actions that only update the context. The guards and the
// context updates are plain functions given beside the machine, and the machine's `setup` takes
// them through `machineGuards` and `machineUpdates`, so both run the very same code.
//
// For such a machine XState's general algorithm — exit and entry sets, transition domains, a
// snapshot cloned per step — costs about ten times what the transition itself does (about 6 µs an
// event against 0.5 µs for the actor's own mailbox and observers), and a task actor takes three
// events per delivery. The logic made here is the machine itself with two methods replaced:
// `getInitialSnapshot` and `transition` look the enabled transition up in a table built once from
// the machine's state nodes and build the next snapshot from a template of the target state. The
// snapshots are the machine's own (value, context, status, `_nodes` and the machine's methods, so
// `matches`, `can`, persistence and inspection work unchanged); events the table does not name —
// `xstate.stop` and the other `xstate.*` events — go to the machine's own transition. What differs
// is only what is not computed: no `@xstate.microstep` inspection events are emitted for the steps
// taken here (the actor's `@xstate.event` and `@xstate.snapshot` events are as before).
//
// `flatMachineLogic` refuses, when it is made, a machine it cannot run exactly; a differential test
// checks it against XState's own transitions on every state and event.
import {
  type AnyStateMachine,
  assign,
  type ContextFrom,
  type EventFromLogic,
  type EventObject,
  type MachineContext,
  type StateNode,
} from 'xstate';

/** A guard as a plain predicate over the context and the event. */
export type Predicate<TContext, TEvent> = (context: TContext, event: TEvent) => boolean;

/** The members of a context an update changes (a member set to undefined is cleared). */
export type ContextPatch<TContext> = { [K in keyof TContext]?: TContext[K] | undefined };

/** A named action as a plain update: the members of the context it changes. */
export type Update<TContext, TEvent> = (context: TContext, event: TEvent) => ContextPatch<TContext>;

/** What a flat machine does, beside its definition: its guards and its context updates, by name. */
export interface FlatBehaviour<TContext, TEvent> {
  readonly guards: Readonly<Record<string, Predicate<TContext, TEvent>>>;
  readonly updates: Readonly<Record<string, Update<TContext, TEvent>>>;
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

/** One candidate transition of a state, in document order. */
interface Candidate<TContext, TEvent> {
  readonly guard: Predicate<TContext, TEvent> | undefined;
  /** The target state's key; undefined for a transition that stays. */
  readonly target: string | undefined;
  readonly updates: readonly Update<TContext, TEvent>[];
}

/** What a snapshot of one state holds besides its context. */
interface StateTemplate {
  readonly value: unknown;
  readonly _nodes: unknown;
  readonly tags: unknown;
  readonly done: boolean;
}

/** A state's transitions by event type, its eventless ones, and its snapshot template. */
interface CompiledState<TContext, TEvent> {
  readonly on: ReadonlyMap<string, readonly Candidate<TContext, TEvent>[]>;
  readonly always: readonly Candidate<TContext, TEvent>[];
  readonly template: StateTemplate;
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
  if (node.entry.length > 0 || node.exit.length > 0) fail('has entry or exit actions');
  if (node.invoke.length > 0) fail('invokes actors');
  if (node !== machine.root && Object.keys(node.states).length > 0) fail('has child states');
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
): Candidate<TContext, TEvent>[] {
  return transitions.map((t) => {
    const fail = (what: string) => {
      throw new NotFlatError(machine.id, `${where}, on '${t.eventType}': ${what}`);
    };
    let guard: Predicate<TContext, TEvent> | undefined;
    if (t.guard !== undefined) {
      if (typeof t.guard !== 'string') fail('a guard that is not named (inline, parameterised or combined)');
      guard = behaviour.guards[t.guard as string];
      if (guard === undefined) fail(`the guard '${String(t.guard)}' is not among the given predicates`);
    }
    const updates = t.actions.map((action) => {
      if (typeof action !== 'string') fail('an action that is not named');
      const update = behaviour.updates[action as string];
      if (update === undefined) fail(`the action '${String(action)}' is not among the given updates`);
      return update as Update<TContext, TEvent>;
    });
    if (t.target !== undefined && t.target.length > 1) fail('more than one target');
    const target = t.target?.[0];
    if (target !== undefined && target.parent !== machine.root) fail('a target that is not a state of the root');
    return { guard, target: target?.key, updates };
  });
}

/**
 * The machine as fast actor logic (see above). Throws `NotFlatError` when the machine is not
 * flat: a nested, invoking or delayed state, entry or exit actions, a wildcard event, a guard or
 * an action that is not one of `behaviour`'s, or output.
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
  const rootOn = new Map<string, Candidate<TContext, TEvent>[]>();
  for (const [type, transitions] of root.transitions) rootOn.set(type, compileCandidates(machine, behaviour, transitions, 'its root'));

  const states = new Map<string, CompiledState<TContext, TEvent>>();
  for (const [key, node] of Object.entries(root.states) as [string, AnyNode][]) {
    const where = `its state '${key}'`;
    checkPlain(machine, node, where);
    if (node.type !== 'atomic' && node.type !== 'final') throw new NotFlatError(machine.id, `${where} is a ${node.type} state`);
    const on = new Map<string, Candidate<TContext, TEvent>[]>();
    for (const [type, transitions] of node.transitions) on.set(type, compileCandidates(machine, behaviour, transitions, where));
    // An event the state does not take is looked up on the root, as XState does; one the state
    // takes with no enabled transition falls through to the root's too.
    for (const [type, candidates] of rootOn) on.set(type, [...(on.get(type) ?? []), ...candidates]);
    for (const type of on.keys()) {
      if (type.includes('*')) throw new NotFlatError(machine.id, `${where} takes the wildcard event '${type}'`);
    }
    const always = compileCandidates(machine, behaviour, node.always ?? [], `${where} (eventless)`);
    const resolved = machine.resolveState({ value: key, context: {} as TContext });
    states.set(key, {
      on,
      always,
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

  /** Takes the first enabled candidate, if any: the next snapshot, or undefined when none is enabled. */
  const take = (
    candidates: readonly Candidate<TContext, TEvent>[] | undefined,
    snapshot: FlatSnapshot<TContext>,
    event: TEvent,
  ): FlatSnapshot<TContext> | undefined => {
    if (candidates === undefined) return undefined;
    const context = snapshot.context;
    for (const candidate of candidates) {
      if (candidate.guard !== undefined && !candidate.guard(context, event)) continue;
      let next = context;
      for (const update of candidate.updates) next = Object.assign({}, next, update(next, event));
      if ((candidate.target === undefined || candidate.target === snapshot.value) && next === context) return snapshot;
      return snapshotOf(candidate.target ?? (snapshot.value as string), next, snapshot);
    }
    return undefined;
  };

  /** The eventless transitions after a step, until none is enabled or one changes nothing. */
  const settle = (snapshot: FlatSnapshot<TContext>, event: TEvent): FlatSnapshot<TContext> => {
    let current = snapshot;
    while (current.status === 'active') {
      const always = (states.get(current.value as string) as CompiledState<TContext, TEvent>).always;
      if (always.length === 0) break;
      const next = take(always, current, event);
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
      value: (actorScope: { self: unknown }, input: unknown) => {
        try {
          const context = (
            typeof contextOf === 'function' ? contextOf({ input, self: actorScope.self, spawn }) : (contextOf ?? {})
          ) as TContext;
          return settle(snapshotOf(initial, context, undefined), { type: 'xstate.init', input } as TEvent);
        } catch (error) {
          return { ...snapshotOf(initial, {} as TContext, undefined), status: 'error', error };
        }
      },
    },
    transition: {
      value: (snapshot: FlatSnapshot<TContext>, event: TEvent, actorScope: unknown) => {
        const type = (event as EventObject).type;
        if (snapshot.status !== 'active' || type.startsWith('xstate.')) {
          return transition(snapshot as never, event, actorScope as never);
        }
        const state = states.get(snapshot.value as string) as CompiledState<TContext, TEvent>;
        return settle(take(state.on.get(type), snapshot, event) ?? snapshot, event);
      },
    },
  }) as TMachine;
}
