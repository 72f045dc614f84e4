// Path helpers for the model-based tests, on top of @xstate/graph: a bounded simple-path generator
// (every path from the initial state that visits no state twice, up to a number of events),
// dropping paths that a longer path contains, a seeded sample that still takes every step,
// coverage counts against the transitions a machine defines, short path names, and replaying a
// path's events through the model to get each step's exact expected snapshot (the traversal keys
// states by their serialisation, so the snapshots it stores for a step may come from another path
// that reached the same key).
import { getAdjacencyMap, type PathGenerator, type StatePath, type Step } from '@xstate/graph';
import {
  type AnyStateMachine,
  type EventFromLogic,
  type EventObject,
  type InputFrom,
  initialTransition,
  type Snapshot,
  type SnapshotFrom,
  transition,
} from 'xstate';

/** Every simple path of at most `maxSteps` events from the initial state (maximal ones only). */
export function boundedSimplePaths<TSnapshot extends Snapshot<unknown>, TEvent extends EventObject, TInput>(
  maxSteps: number,
): PathGenerator<TSnapshot, TEvent, TInput> {
  return (logic, options) => {
    const adjacency = getAdjacencyMap(logic, options);
    const serialize = options.serializeState ?? ((state: TSnapshot) => JSON.stringify(state));
    const keys = Object.keys(adjacency) as Array<keyof typeof adjacency>;
    const start = keys[0];
    if (start === undefined) return [];
    const initial = adjacency[start]!.state;
    const paths: Array<StatePath<TSnapshot, TEvent>> = [];
    const steps: Array<Step<TSnapshot, TEvent>> = [{ state: initial, event: { type: 'xstate.init' } as TEvent }];
    const seen = new Set<string>([start]);
    const walk = (key: keyof typeof adjacency): void => {
      const here = adjacency[key]!;
      let extended = false;
      if (steps.length <= maxSteps) {
        for (const { event, state } of Object.values(here.transitions)) {
          const next = serialize(state, event, here.state) as keyof typeof adjacency;
          if (seen.has(next) || adjacency[next] === undefined) continue;
          extended = true;
          seen.add(next);
          steps.push({ state, event });
          walk(next);
          steps.pop();
          seen.delete(next);
        }
      }
      if (!extended) paths.push({ state: here.state, steps: [...steps], weight: steps.length - 1 });
    };
    walk(start);
    return paths;
  };
}

/** Replays a path's events from the model's initial state: the exact expected snapshot after each step. */
export function replay<TMachine extends AnyStateMachine>(
  machine: TMachine,
  events: readonly EventObject[],
  input?: InputFrom<TMachine>,
): Array<SnapshotFrom<TMachine>> {
  const start = initialTransition as (logic: TMachine, input?: InputFrom<TMachine>) => [SnapshotFrom<TMachine>, unknown];
  let [snapshot] = start(machine, input);
  const out: Array<SnapshotFrom<TMachine>> = [];
  for (const event of events) {
    if (event.type !== 'xstate.init') [snapshot] = transition(machine, snapshot, event as EventFromLogic<TMachine>);
    out.push(snapshot);
  }
  return out;
}

/**
 * Drops every path whose events are a prefix of another path's (or repeat it): running the
 * longer path checks every state of the shorter one on the way.
 */
export function withoutPrefixes<TPath extends { readonly steps: ReadonlyArray<{ readonly event: EventObject }> }>(
  paths: readonly TPath[],
): TPath[] {
  const keyed = paths.map((path) => ({ path, events: path.steps.map((s) => JSON.stringify(s.event)) }));
  keyed.sort((a, b) => b.events.length - a.events.length);
  const kept: typeof keyed = [];
  for (const candidate of keyed) {
    const covered = kept.some((longer) => candidate.events.every((event, i) => longer.events[i] === event));
    if (!covered) kept.push(candidate);
  }
  return kept.map((k) => k.path);
}

/**
 * A deterministic sample of `paths` that takes every step any of them takes, a step being named
 * by `stepKeys` (source, event and target as coarse as the caller wants): a greedy cover — the
 * path adding the most steps not yet taken, ties broken by a seeded order — then `extra` more
 * paths in that order. The sample keeps the paths' order.
 */
export function coveringSample<TPath>(
  paths: readonly TPath[],
  stepKeys: (path: TPath) => readonly string[],
  extra: number,
  seed: number,
): TPath[] {
  const random = seededRandom(seed);
  const order = paths.map((path, index) => ({ index, keys: new Set(stepKeys(path)), rank: random() })).sort((a, b) => a.rank - b.rank);
  const taken = new Set<string>();
  const chosen = new Set<number>();
  for (;;) {
    let best: (typeof order)[number] | undefined;
    let bestGain = 0;
    for (const candidate of order) {
      if (chosen.has(candidate.index)) continue;
      let gain = 0;
      for (const key of candidate.keys) if (!taken.has(key)) gain++;
      if (gain > bestGain) [best, bestGain] = [candidate, gain];
    }
    if (best === undefined) break;
    chosen.add(best.index);
    for (const key of best.keys) taken.add(key);
  }
  let more = extra;
  for (const candidate of order) {
    if (more <= 0) break;
    if (chosen.has(candidate.index)) continue;
    chosen.add(candidate.index);
    more--;
  }
  return paths.filter((_, index) => chosen.has(index));
}

/** A small seeded generator of numbers in [0, 1) (mulberry32). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An event as a short name: `type(payload values)`. */
export function eventName(event: EventObject): string {
  const { type, ...rest } = event as EventObject & Record<string, unknown>;
  const values = Object.values(rest).filter((v) => typeof v === 'string' || typeof v === 'number');
  return values.length === 0 ? type : `${type}(${values.join(', ')})`;
}

/** A path as the chain of its events. */
export const pathName = (steps: ReadonlyArray<{ event: EventObject }>): string =>
  steps
    .filter((s) => s.event.type !== 'xstate.init')
    .map((s) => eventName(s.event))
    .join(' → ') || '(initial state)';

/** Every transition a machine defines, as `source event target` (guarded branches apart; a targetless one targets its source). */
export function definedTransitions(machine: AnyStateMachine): Set<string> {
  const defined = new Set<string>();
  for (const node of Object.values(machine.root.states)) {
    for (const [event, transitions] of node.transitions) {
      for (const t of transitions) defined.add(`${node.key} ${event} ${t.target?.[0]?.key ?? node.key}`);
    }
  }
  return defined;
}

type AnyPath = { readonly steps: ReadonlyArray<{ readonly state: Snapshot<unknown>; readonly event: EventObject }> };
const stateValueOf = (state: Snapshot<unknown>): string => String((state as Snapshot<unknown> & { value?: unknown }).value);

/** The transitions the paths take, as `source event target` (named by `name`, the event type by default). */
export function takenTransitions(paths: readonly AnyPath[], name: (event: EventObject) => string = (e) => e.type): Set<string> {
  const taken = new Set<string>();
  for (const path of paths) {
    for (let i = 1; i < path.steps.length; i++) {
      const step = path.steps[i]!;
      taken.add(`${stateValueOf(path.steps[i - 1]!.state)} ${name(step.event)} ${stateValueOf(step.state)}`);
    }
  }
  return taken;
}

/** The distinct states the paths visit. */
export const visitedStates = (paths: readonly AnyPath[]): Set<string> =>
  new Set(paths.flatMap((p) => p.steps.map((s) => stateValueOf(s.state))));
