// Model-based tests of the task machine itself (machines/taskMachine.ts): paths generated with
// @xstate/graph from the machine — for a one-shot and a recurring task — each run against the real
// service (manual clock, held fake Sessions, memory storage), the real task actor compared with
// the model after every step through the inspector. Shortest paths reach every (state, context)
// by every transition; simple paths go up to SIMPLE_PATH_STEPS events, and up to BASE_PATH_STEPS
// events of the base steps alone — every step but a pause, a resume or a run now. `npm test` runs a
// seeded sample of them that takes every step any of them takes, a step named by what its event
// stands for between the states it joins, each told by its value, pause, run-now request, failure,
// backoff, status and target (`abstractStep`); `npm run stress` runs every path.
import { createTestModel, type TestPath } from '@xstate/graph';
import type { SnapshotFrom } from 'xstate';
import { type TaskEvent, type TaskMachine, taskMachine } from '../../machines/taskMachine.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { LONG_RUNS } from '../support/runs.ts';
import {
  boundedSimplePaths,
  coveringSample,
  definedTransitions,
  pathName,
  takenTransitions,
  visitedStates,
  withoutPrefixes,
} from './paths.ts';
import { TaskDriver } from './taskDriver.ts';
import {
  isManualCommit,
  isRequestTick,
  isRetryTick,
  ONE_SHOT,
  offeredTaskEvents,
  RECURRING,
  stepOf,
  TASK_FAULTS,
  type TaskStep,
  useRetryPolicy,
} from './taskEvents.ts';
import { World } from './world.ts';

const SIMPLE_PATH_STEPS = 5;
/** The retry delay: a minute, so a retried write lands before a recurring task's next target. */
const TASK_RETRY_MS = 60_000;
const BASE_PATH_STEPS = 8;
/** Paths `npm test` runs beyond those that take every abstract step, per suite. */
const EXTRA_SAMPLED_PATHS = 12;

type Snap = SnapshotFrom<TaskMachine>;

/**
 * A step's name in a path: what the event stands for (`tick`, `tick(run now)`, `start`, `title`,
 * `retime`, `pause`, `resume`, `trigger`, `commit`, `commit(run now)`, `fail(point)`).
 */
const stepName = (event: { readonly type: string }): string => {
  const step = stepOf(event);
  if (step === undefined) return event.type;
  if (isManualCommit(event)) return 'commit(run now)';
  if (isRequestTick(event)) return 'tick(run now)';
  if (isRetryTick(event)) return 'tick(retry)';
  return (TASK_FAULTS as readonly string[]).includes(step) ? `fail(${step})` : step;
};

// The events go to the path generators, not to createTestModel: its own `events` option offers a
// bare `{ type }` for every event type a state handles that the list leaves out.
const model = createTestModel(taskMachine);
const fullState = (s: Snap): string => JSON.stringify({ value: s.value, context: s.context });

const RUN_STATE_STEPS: readonly TaskStep[] = ['pause', 'resume', 'trigger'];
const baseEvents = (s: Snap) => offeredTaskEvents(s).filter((e) => !RUN_STATE_STEPS.includes(stepOf(e) as TaskStep));

/** What decides a task's behaviour in a state, without the title an edit toggles. */
const abstractState = (s: Snap) => {
  const { failure, retries } = s.context;
  const { pausedAt, triggeredAt, status, record } = s.context.row;
  return [
    s.value,
    pausedAt !== undefined,
    triggeredAt !== undefined,
    failure?.stage ?? null,
    retries !== undefined,
    status,
    record.scheduledAt,
  ];
};

/** Each step of a path: the abstract state it leaves, what its event stands for, the abstract state it reaches. */
const abstractSteps = (path: TestPath<Snap, TaskEvent>): string[] =>
  path.steps
    .slice(1)
    .map((step, i) => JSON.stringify([abstractState(path.steps[i]!.state), stepName(step.event), abstractState(step.state)]));

/** Every path under `npm run stress`; under `npm test` a seeded sample taking every abstract step. */
const sized = (paths: Array<TestPath<Snap, TaskEvent>>, seed: number) =>
  LONG_RUNS ? paths : coveringSample(paths, abstractSteps, EXTRA_SAMPLED_PATHS, seed);

/** With retry off only the shortest paths run: the simple paths repeat the retried suites' steps. */
function shortestFor(input: { row: TaskRow }, seed: number) {
  const shortest = model.getShortestPaths({ input, events: offeredTaskEvents });
  const all = withoutPrefixes(shortest);
  return { shortest, simple: [], all, paths: sized(all, seed) };
}

function pathsFor(input: { row: TaskRow }, seed: number) {
  const shortest = model.getShortestPaths({ input, events: offeredTaskEvents });
  const simple = [
    ...model.getPaths(boundedSimplePaths(SIMPLE_PATH_STEPS), { input, events: offeredTaskEvents, serializeState: fullState }),
    ...model.getPaths(boundedSimplePaths(BASE_PATH_STEPS), { input, events: baseEvents, serializeState: fullState }),
  ];
  const all = withoutPrefixes([...shortest, ...simple]);
  return { shortest, simple, all, paths: sized(all, seed) };
}

/** The suites: a one-shot and a recurring task whose failures are retried, and both again with retry off (parked). */
const suites = [
  { name: 'one-shot', row: ONE_SHOT, recurring: false, parked: false },
  { name: 'recurring', row: RECURRING, recurring: true, parked: false },
  { name: 'one-shot, retry off', row: ONE_SHOT, recurring: false, parked: true },
  { name: 'recurring, retry off', row: RECURRING, recurring: true, parked: true },
].map((suite, seed) => {
  useRetryPolicy(suite.parked ? false : { initialMs: TASK_RETRY_MS, maxMs: TASK_RETRY_MS });
  return { ...suite, ...(suite.parked ? shortestFor({ row: suite.row }, seed) : pathsFor({ row: suite.row }, seed)) };
});

const allPaths = suites.flatMap((s) => s.paths);
const defined = definedTransitions(taskMachine);
const taken = takenTransitions(allPaths);
console.log(
  `[model] task machine: ${suites
    .map(
      (s) =>
        `${s.name} ${s.shortest.length} shortest + ${s.simple.length} simple (≤ ${SIMPLE_PATH_STEPS} events, ≤ ${BASE_PATH_STEPS} base events)`,
    )
    .join(', ')}; ${allPaths.length} of their ${suites.reduce((n, s) => n + s.all.length, 0)} paths run (none a prefix of another${
    LONG_RUNS ? '' : ', a sample taking every abstract step'
  }); they visit ${visitedStates(allPaths).size} of ${
    Object.keys(taskMachine.states).length
  } states and take ${taken.size} of ${defined.size} transitions (${takenTransitions(allPaths, stepName).size} by what each event stands for)`,
);

const EVENT_TYPES: ReadonlyArray<TaskEvent['type']> = [
  'clock.tick',
  'delivery.start',
  'delivery.failed',
  'delivery.committed',
  'task.updated',
  'delivery.retry',
];

async function run(path: TestPath<Snap, TaskEvent>, recurring: boolean, parked: boolean): Promise<void> {
  const world = await World.open('memory', { retry: parked ? false : TASK_RETRY_MS });
  try {
    const driver = await TaskDriver.start(world, recurring);
    const act = (step: { event: TaskEvent }) => driver.act(step.event);
    await path.test({
      events: Object.fromEntries(EVENT_TYPES.map((type) => [type, act])),
      states: { '*': (state) => driver.check(state) },
    });
  } finally {
    await world.dispose();
  }
}

for (const suite of suites) {
  describe(`task machine — ${suite.name} task`, () => {
    for (const path of suite.paths) {
      it(pathName(path.steps.map((s) => ({ event: { type: stepName(s.event) } }))), () => run(path, suite.recurring, suite.parked));
    }
  });
}

describe('task machine coverage', () => {
  it('the paths visit every state and take every transition of the machine but those the service cannot be driven to', () => {
    // Not taken:
    // - `delivering delivery.committed overdue`, and the same commit from `retrying` and `parked`
    //   (a retried receipt write): a commit's next target is always after the attempt, and the
    //   commit answers every run-now request made by the attempt's start.
    // - `delivering delivery.failed scheduled`: a failed attempt leaves a task that is not paused
    //   due, unless an edit moved its target during the attempt — the user model's `fail` after an
    //   in-flight timing change covers that.
    // - `overdue clock.tick scheduled`, `overdue clock.tick paused`: the timer hands a task out only
    //   once its key — the instant its actor is due — has come, so a tick never finds an overdue task not due; a
    //   not-due tick reached only a task whose timer was already lost (timerRegressions.test.ts).
    // - `parked clock.tick parked`: a tick that does not find a parked task due — the clock stepped
    //   back while it was parked, which the model leaves out; the task machine's tests cover it
    //   (the task stays parked and reports its wake again).
    // - `parked clock.tick overdue`: the wake that finds a parked task starts its delivery in the
    //   same step (a Session held by another reminder would have woken the parked task with it), so
    //   it is never seen overdue; test/service/messageIds.test.ts and faults.test.ts cover it.
    // - `parked delivery.failed parked`: with retry off a waiting receipt is written again right
    //   after another write succeeds, and the injected fault fails that other write instead.
    // - `parked delivery.failed retrying`, `retrying delivery.failed parked`: one service has one
    //   retry policy, so a task never moves between retrying and parked.
    // - `delivery.retry` (from `retrying` and `parked`): sent by a run now on a task whose run-now
    //   request already waits, i.e. whose run-now delivery failed — failures the model leaves out;
    //   test/service/operations.test.ts ("writes nothing and tries the waiting delivery again at
    //   once") covers it.
    // - `retrying task.updated retrying`, `parked task.updated parked`: an edit while a receipt
    //   waits for its write, which the model leaves out (the retried write keeps the edit, which
    //   the context cannot follow); the user model's edits while a receipt waits cover it.
    expect([...defined].filter((t) => !taken.has(t)).sort()).toEqual([
      'delivering delivery.committed overdue',
      'delivering delivery.failed scheduled',
      'overdue clock.tick paused',
      'overdue clock.tick scheduled',
      'parked clock.tick overdue',
      'parked clock.tick parked',
      'parked delivery.committed overdue',
      'parked delivery.failed parked',
      'parked delivery.failed retrying',
      'parked delivery.retry overdue',
      'parked delivery.retry parked',
      'parked task.updated parked',
      'retrying delivery.committed overdue',
      'retrying delivery.failed parked',
      'retrying delivery.retry overdue',
      'retrying delivery.retry retrying',
      'retrying task.updated retrying',
    ]);
    expect([...visitedStates(allPaths)].sort()).toEqual(Object.keys(taskMachine.states).sort());
  });

  it('each suite runs every abstract step its generated paths take', () => {
    for (const suite of suites) {
      const run = new Set(suite.paths.flatMap(abstractSteps));
      expect([...new Set(suite.all.flatMap(abstractSteps))].filter((step) => !run.has(step))).toEqual([]);
    }
  });
});
