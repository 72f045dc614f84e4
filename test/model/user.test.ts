// Model-based tests of the whole scheduler from a user's side: paths generated from the user model
// (test/model/userModel.ts) with @xstate/graph — the shortest path to every state reached by every
// transition, and every simple path of up to SIMPLE_PATH_STEPS events — each run against the real
// service (manual clock, held fake Sessions; JSON file storage for the shortest paths, memory
// storage for the simple ones), checking after every step what the user observes. `npm test` runs
// every shortest path and a seeded sample of the simple ones that takes every step they take (a
// step: the state left, the event with its payload, the state reached); `npm run stress` runs all.
import { createTestModel } from '@xstate/graph';
import type { SnapshotFrom } from 'xstate';
import { LONG_RUNS } from '../support/runs.ts';
import {
  boundedSimplePaths,
  coveringSample,
  definedTransitions,
  eventName,
  pathName,
  takenTransitions,
  visitedStates,
  withoutPrefixes,
} from './paths.ts';
import { runUserPath } from './userDriver.ts';
import {
  CHANGE_KINDS,
  type ChangeKind,
  CREATE_KINDS,
  type CreateKind,
  FAULTS,
  isRecurringKind,
  type UserEvent,
  type UserModel,
  userModel,
} from './userModel.ts';

/** The bound on simple paths: at most this many events. */
const SIMPLE_PATH_STEPS = 7;
/** Simple paths `npm test` runs beyond those that take every step. */
const EXTRA_SAMPLED_PATHS = 20;

type Snap = SnapshotFrom<UserModel>;

/** Every concrete event: each create kind, each update, each fault. */
const ALL_EVENTS: readonly UserEvent[] = [
  ...CREATE_KINDS.map((kind) => ({ type: 'create', kind }) as const),
  ...CHANGE_KINDS.map((change) => ({ type: 'update', change }) as const),
  ...FAULTS.map((fault) => ({ type: 'fail', fault }) as const),
  { type: 'delete' },
  { type: 'session.stop' },
  { type: 'clock.due' },
  { type: 'deliver' },
  { type: 'clock.retry' },
  { type: 'write.other' },
  { type: 'reopen' },
];

/** The smaller alphabet of the simple paths: a one-shot and a recurring create, a title edit and two timing changes. */
const SIMPLE_CREATES: readonly CreateKind[] = ['after', 'cron'];
const SIMPLE_CHANGES: readonly ChangeKind[] = ['title', 'at', 'daily'];
const SIMPLE_EVENTS: readonly UserEvent[] = ALL_EVENTS.filter(
  (e) => (e.type !== 'create' || SIMPLE_CREATES.includes(e.kind)) && (e.type !== 'update' || SIMPLE_CHANGES.includes(e.change)),
);

/**
 * The events a state takes, from `alphabet`. Three exclusions, each a situation the real service
 * cannot (or must not yet) be driven into:
 * - an update of an ended task is refused whatever it changes: one title edit stands for all;
 * - a storage fault needs a write, and the delivery of a deleted task writes nothing.
 */
const offered =
  (alphabet: readonly UserEvent[]) =>
  (snapshot: Snap): UserEvent[] =>
    alphabet.filter((e) => {
      if (!snapshot.can(e)) return false;
      if (e.type === 'update' && snapshot.matches('ended')) return e.change === 'title';
      if (e.type === 'fail' && snapshot.matches('orphaned')) return e.fault !== 'storage';
      return true;
    });

/** What decides the model's behaviour from a state (the counts in the context do not). */
const stateKey = (s: Snap): string =>
  JSON.stringify([s.value, isRecurringKind(s.context.kind), s.context.retimed, s.context.failedAfterRetime]);

// The events go to the path generators, not to createTestModel: its own `events` option offers a
// bare `{ type }` for every event type a state handles that the list leaves out.
const model = createTestModel(userModel);
// Keyed by the transition that reached a state too, so the shortest paths cover every transition.
const shortest = model.getShortestPaths({
  events: offered(ALL_EVENTS),
  serializeState: (s, event, prev) =>
    event === undefined || prev === undefined ? stateKey(s) : `${stateKey(s)} via ${eventName(event)} from ${stateKey(prev)}`,
});
const allSimple = model.getPaths(boundedSimplePaths(SIMPLE_PATH_STEPS), {
  events: offered(SIMPLE_EVENTS),
  serializeState: (s) => stateKey(s),
});
/** Each step of a path: the state it leaves, its event, the state it reaches. */
const steps = (path: (typeof allSimple)[number]): string[] =>
  path.steps.slice(1).map((step, i) => `${stateKey(path.steps[i]!.state)} ${eventName(step.event)} ${stateKey(step.state)}`);
const simple = LONG_RUNS ? allSimple : coveringSample(withoutPrefixes(allSimple), steps, EXTRA_SAMPLED_PATHS, 1);
const paths = withoutPrefixes([...shortest, ...simple]);
const defined = definedTransitions(userModel);
const taken = takenTransitions(paths);
console.log(
  `[model] user model: ${shortest.length} shortest paths (JSON storage) + ${simple.length} of ${allSimple.length} simple paths (≤ ${SIMPLE_PATH_STEPS} events, memory storage); ${
    paths.length
  } paths run (none a prefix of another); they visit ${visitedStates(paths).size} of ${Object.keys(userModel.states).length} states and take ${
    [...defined].filter((t) => taken.has(t)).length
  } of ${defined.size} transitions (${takenTransitions(paths, eventName).size} with distinct event payloads)`,
);

const fromShortest = new Set<unknown>(shortest);

describe('user model — shortest paths, JSON file storage', () => {
  for (const path of paths.filter((p) => fromShortest.has(p))) it(pathName(path.steps), () => runUserPath(path, 'json'));
});

describe('user model — simple paths, memory storage', () => {
  for (const path of paths.filter((p) => !fromShortest.has(p))) it(pathName(path.steps), () => runUserPath(path, 'memory'));
});

describe('user model coverage', () => {
  it('the paths visit every state and take every transition of the model', () => {
    expect([...visitedStates(paths)].sort()).toEqual(Object.keys(userModel.states).sort());
    expect([...defined].filter((t) => !taken.has(t))).toEqual([]);
  });

  it('the paths run take every step the generated paths take', () => {
    const run = new Set(paths.flatMap(steps));
    expect([...new Set([...shortest, ...allSimple].flatMap(steps))].filter((step) => !run.has(step))).toEqual([]);
  });
});
