// The cost floor of the actor library on this machine: what one event through one transition, one
// forwarding hop from a parent to a child, one spawned actor and one promise actor cost in
// isolation, and the least time a delivery burst can take when each of its events costs no more
// than the bare library does. One event to one actor in a loop finds that actor in the processor's
// caches; a burst's events reach 10,000 task actors, so the same event is also measured sent to
// each of 10,000 actors in turn, in a scattered order. The delivery goal's floor is the burst's
// events at that cost: what a design of three XState events per delivery pays at the least when its
// events reach the actors a burst reaches; the one-hot-actor floor beside it is stricter (an actor
// in the processor's caches). Each figure is the median, and the least, of several runs after a
// warm-up run.
import { createActor, enqueueActions, fromPromise, setup } from 'xstate';
import { flatMachineLogic, machineUpdates } from '../../machines/flatLogic.ts';
import { median } from './stats.ts';

/** The library's own costs, and the delivery burst's floor computed from them. */
export interface FloorFigures {
  /** One event through one transition (with one assign) of a tiny machine, in µs. */
  readonly perEventUs: number;
  /** The same event through the same machine run by `flatMachineLogic` (as task and Session actors run), in µs. */
  readonly flatEventUs: number;
  /**
   * One event through one transition, each event to another of `SPREAD_ACTORS` actors of the
   * tiny machine in a scattered order (as a burst's events reach its task actors), in µs.
   */
  readonly spreadEventUs: number;
  /** The same, the actors running the machine's flat logic, in µs. */
  readonly spreadFlatEventUs: number;
  /** What routing one event through a parent that forwards it with `enqueue.sendTo` adds, in µs. */
  readonly perHopUs: number;
  /** One actor spawned as a child (in groups of `SPAWN_GROUP`), in µs. */
  readonly spawnUs: number;
  /** The heap one spawned child holds, in bytes (0 when the process runs without --expose-gc). */
  readonly spawnBytes: number;
  /** One promise actor invoked and resolved, with the two transitions around it, in µs. */
  readonly promiseActorUs: number;
  /** The delivery burst's events (`burstEvents()`) at `perEventUs` each, in ms: every event at one hot actor's cost. */
  readonly burstFloorMs: number;
  /**
   * The same events at `spreadEventUs` each, in ms: every event at its cost to one of many actors,
   * as the burst's events reach 10,000 task actors. The delivery goal is set against this floor.
   */
  readonly spreadBurstFloorMs: number;
  /**
   * The same events at `flatEventUs` (task and Session actors run the flat logic), plus one event
   * per Session at `perEventUs` for its route through a Session group and the supervisor, in ms.
   */
  readonly flatBurstFloorMs: number;
  /** The burst's events at `spreadFlatEventUs`, plus one event per Session at `spreadEventUs` for its route, in ms. */
  readonly spreadFlatBurstFloorMs: number;
}

/** The medians of the runs, and in `least` the least of each measure's runs. */
export interface Floor extends FloorFigures {
  /** The least of the runs: the figures least disturbed by other work on the machine. */
  readonly least: FloorFigures;
}

export interface FloorOptions {
  /** Events per run for the one-actor and the parent-to-child figures. */
  readonly events?: number;
  /** Actors spawned per run. */
  readonly spawns?: number;
  /** Promise actors invoked per run. */
  readonly attempts?: number;
  /** Measured runs, after one warm-up run. */
  readonly runs?: number;
  /** The burst the floor is computed for. */
  readonly burst?: Burst;
}

/** A delivery burst: tasks all due at one instant over Sessions. */
export interface Burst {
  readonly tasks: number;
  readonly sessions: number;
  /** Events each delivered task takes: clock.tick, delivery.start, delivery.committed. */
  readonly eventsPerTask: number;
  /** Events each Session takes for its one batch of deliveries. */
  readonly eventsPerSession: number;
}

/** The delivery benchmark's burst: 10,000 tasks over 1,000 Sessions. */
export const DELIVERY_BURST: Burst = { tasks: 10_000, sessions: 1_000, eventsPerTask: 3, eventsPerSession: 5 };

/** Children per parent when spawning, so that no parent's children map grows large. */
export const SPAWN_GROUP = 64;

export const burstEvents = (burst: Burst): number => burst.eventsPerTask * burst.tasks + burst.eventsPerSession * burst.sessions;

type Tick = { readonly type: 'tick' };
type Count = { readonly n: number };

/** The tiny machine's one action, as a plain update (the machine and its flat logic both run it). */
const tinyUpdates = { count: (context: Count) => ({ n: context.n + 1 }) };

/** Two states and a counter: every tick is one transition with one assign. */
const tinyMachine = setup({
  types: { context: {} as Count, events: {} as Tick },
  actions: machineUpdates<Count, Tick, typeof tinyUpdates>(tinyUpdates),
}).createMachine({
  context: { n: 0 },
  initial: 'a',
  states: {
    a: { on: { tick: { target: 'b', actions: 'count' } } },
    b: { on: { tick: { target: 'a', actions: 'count' } } },
  },
});

/** The tiny machine run by `flatMachineLogic`, as every task actor runs the task machine. */
const tinyFlatLogic = flatMachineLogic(tinyMachine, { guards: {}, updates: tinyUpdates });

/** A parent that forwards every tick to its invoked child with `enqueue.sendTo`. */
const forwardingMachine = setup({
  types: { events: {} as Tick },
  actors: { tiny: tinyMachine },
  actions: {
    forward: enqueueActions(({ enqueue }) => {
      enqueue.sendTo('child', { type: 'tick' });
    }),
  },
}).createMachine({
  invoke: { src: 'tiny', id: 'child' },
  on: { tick: { actions: 'forward' } },
});

/** A parent that spawns `count` children of `logic` as it starts, as a group of task actors does. */
const groupOf = (logic: typeof tinyMachine) =>
  setup({
    types: { input: {} as { readonly count: number } },
    actors: { tiny: logic },
  }).createMachine({
    context: ({ input, spawn }) => {
      for (let i = 0; i < input.count; i++) spawn('tiny', { id: `c${i}` });
      return {};
    },
  });
const groupMachine = groupOf(tinyMachine);
const flatGroupMachine = groupOf(tinyFlatLogic);

/** Actors the spread figures send to, in groups of `SPAWN_GROUP` as task actors live. */
export const SPREAD_ACTORS = 10_000;
/** The step through the actors (prime to their count): consecutive events reach actors far apart in memory. */
const SPREAD_STRIDE = 1_001;

/** Waits in `idle`; each attempt invokes a promise actor that resolves at once and reports back. */
const attemptMachine = setup({
  types: {
    input: {} as { readonly settled: () => void },
    context: {} as { readonly settled: () => void },
    events: {} as { readonly type: 'attempt' },
  },
  actors: { deliver: fromPromise<number>(async () => 1) },
  actions: { settled: ({ context }) => context.settled() },
}).createMachine({
  context: ({ input }) => ({ settled: input.settled }),
  initial: 'idle',
  states: {
    idle: { on: { attempt: 'attempting' } },
    attempting: { invoke: { src: 'deliver', onDone: { target: 'idle', actions: 'settled' } } },
  },
});

const gc = (): (() => void) | undefined => (globalThis as { gc?: () => void }).gc;

const heapUsed = (): number => {
  gc()?.();
  return process.memoryUsage().heapUsed;
};

/** Runs `measure` once to warm up, then `runs` times; the median and the least of each field. */
async function runsOf<T extends Record<string, number>>(runs: number, measure: () => T | Promise<T>): Promise<{ median: T; least: T }> {
  await measure();
  const results: T[] = [];
  for (let i = 0; i < runs; i++) results.push(await measure());
  const keys = Object.keys(results[0]!);
  const by = (pick: (xs: number[]) => number): T => Object.fromEntries(keys.map((k) => [k, pick(results.map((r) => r[k]!))])) as T;
  return { median: by(median), least: by((xs) => Math.min(...xs)) };
}

function oneActorUs(events: number, logic: typeof tinyMachine = tinyMachine): { us: number } {
  const actor = createActor(logic).start();
  const t0 = performance.now();
  for (let i = 0; i < events; i++) actor.send({ type: 'tick' });
  const ms = performance.now() - t0;
  if (actor.getSnapshot().context.n !== events) throw new Error('the tiny actor missed events');
  actor.stop();
  return { us: (ms * 1000) / events };
}

/** `rounds` events to each of `SPREAD_ACTORS` children of `group`, in a scattered order, per event in µs. */
function spreadUs(rounds: number, group: typeof groupMachine): { us: number } {
  const parents = [];
  for (let g = 0; g < Math.ceil(SPREAD_ACTORS / SPAWN_GROUP); g++)
    parents.push(createActor(group, { input: { count: SPAWN_GROUP } }).start());
  const children = parents.flatMap((parent) => Object.values(parent.getSnapshot().children)).slice(0, SPREAD_ACTORS);
  const order = children.map((_, i) => children[(i * SPREAD_STRIDE) % children.length]!);
  const tick = { type: 'tick' } as const;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) for (const child of order) child.send(tick);
  const ms = performance.now() - t0;
  if (order.some((child) => (child.getSnapshot() as { context: Count }).context.n !== rounds))
    throw new Error('a spread actor missed events');
  for (const parent of parents) parent.stop();
  return { us: (ms * 1000) / (rounds * order.length) };
}

function forwardedUs(events: number): { us: number } {
  const parent = createActor(forwardingMachine).start();
  const child = parent.getSnapshot().children.child;
  if (child === undefined) throw new Error('the forwarding parent has no child');
  const t0 = performance.now();
  for (let i = 0; i < events; i++) parent.send({ type: 'tick' });
  const ms = performance.now() - t0;
  if (child.getSnapshot().context.n !== events) throw new Error('the child missed forwarded events');
  parent.stop();
  return { us: (ms * 1000) / events };
}

function spawned(spawns: number): { us: number; bytes: number } {
  const groups = Math.ceil(spawns / SPAWN_GROUP);
  const parents: { stop: () => void }[] = [];
  const before = heapUsed();
  const t0 = performance.now();
  for (let g = 0; g < groups; g++) parents.push(createActor(groupMachine, { input: { count: SPAWN_GROUP } }).start());
  const ms = performance.now() - t0;
  const after = heapUsed();
  const children = groups * SPAWN_GROUP;
  for (const parent of parents) parent.stop();
  return { us: (ms * 1000) / children, bytes: gc() === undefined ? 0 : (after - before) / children };
}

async function promiseActorsUs(attempts: number): Promise<{ us: number }> {
  let settle: () => void = () => {};
  const actor = createActor(attemptMachine, { input: { settled: () => settle() } }).start();
  const t0 = performance.now();
  for (let i = 0; i < attempts; i++) {
    await new Promise<void>((resolve) => {
      settle = resolve;
      actor.send({ type: 'attempt' });
    });
  }
  const ms = performance.now() - t0;
  actor.stop();
  return { us: (ms * 1000) / attempts };
}

/** Measures the library's costs in this process and the delivery burst's floor from them. */
export async function measureFloor(options: FloorOptions = {}): Promise<Floor> {
  const events = options.events ?? 100_000;
  const spawns = options.spawns ?? 10_000;
  const attempts = options.attempts ?? 10_000;
  const runs = options.runs ?? 5;
  const burst = options.burst ?? DELIVERY_BURST;
  // The one-actor and the forwarded events run back to back in each run, so that the hop, their
  // difference, is taken from two figures measured under the same load.
  const perEvent = await runsOf(runs, () => {
    const one = oneActorUs(events).us;
    const forwarded = forwardedUs(events).us;
    const flat = oneActorUs(events, tinyFlatLogic).us;
    return { one, forwarded, hop: forwarded - one, flat };
  });
  // Three events per actor, as each task takes three in a burst.
  const spread = await runsOf(runs, () => ({ machine: spreadUs(3, groupMachine).us, flat: spreadUs(3, flatGroupMachine).us }));
  const spawn = await runsOf(runs, () => spawned(spawns));
  const promiseActors = await runsOf(runs, () => promiseActorsUs(attempts));
  const floorOf = (pick: 'median' | 'least'): FloorFigures => ({
    perEventUs: perEvent[pick].one,
    // A forwarded event costs the parent's transition, the send and the child's transition; the
    // child's is the one-actor cost, so the rest is what routing through one parent adds.
    perHopUs: pick === 'median' ? perEvent.median.hop : perEvent.least.forwarded - perEvent.least.one,
    spawnUs: spawn[pick].us,
    spawnBytes: spawn[pick].bytes,
    promiseActorUs: promiseActors[pick].us,
    burstFloorMs: (burstEvents(burst) * perEvent[pick].one) / 1000,
    spreadBurstFloorMs: (burstEvents(burst) * spread[pick].machine) / 1000,
    flatEventUs: perEvent[pick].flat,
    flatBurstFloorMs: (burstEvents(burst) * perEvent[pick].flat + burst.sessions * perEvent[pick].one) / 1000,
    spreadEventUs: spread[pick].machine,
    spreadFlatEventUs: spread[pick].flat,
    spreadFlatBurstFloorMs: (burstEvents(burst) * spread[pick].flat + burst.sessions * spread[pick].machine) / 1000,
  });
  return { ...floorOf('median'), least: floorOf('least') };
}

/** The floor as a markdown table of measure and value, in the benchmarks' style. */
export function floorTable(floor: Floor, burst: Burst = DELIVERY_BURST): string {
  const n = (x: number): string => x.toLocaleString('en');
  const us = (x: number): string => `${x.toFixed(2)} µs`;
  const eventsText =
    `${burst.eventsPerTask} × ${n(burst.tasks)} task events + ${burst.eventsPerSession} × ${n(burst.sessions)} Session events ` +
    `= ${n(burstEvents(burst))} events`;
  const f = floor.least;
  const bytes = (x: number): string => (x > 0 ? `${x.toFixed(0)} B` : 'n/a (run with --expose-gc)');
  const ms = (x: number): string => `${x.toFixed(1)} ms`;
  return [
    '| measure | median | least |',
    '|---|---:|---:|',
    `| one event, one transition, one actor | ${us(floor.perEventUs)} | ${us(f.perEventUs)} |`,
    `| the same event through the machine's flat logic (as task and Session actors run) | ${us(floor.flatEventUs)} | ${us(f.flatEventUs)} |`,
    `| one event, one transition, each to another of ${n(SPREAD_ACTORS)} actors (3 rounds, scattered order) | ${us(floor.spreadEventUs)} | ${us(f.spreadEventUs)} |`,
    `| the same through the flat logic | ${us(floor.spreadFlatEventUs)} | ${us(f.spreadFlatEventUs)} |`,
    `| one hop: parent forwards with enqueue.sendTo to a child | ${us(floor.perHopUs)} | ${us(f.perHopUs)} |`,
    `| spawn one actor (as one of ${SPAWN_GROUP} children) | ${us(floor.spawnUs)} | ${us(f.spawnUs)} |`,
    `| heap per spawned actor | ${bytes(floor.spawnBytes)} | ${bytes(f.spawnBytes)} |`,
    `| promise actor invoked and resolved, per attempt | ${us(floor.promiseActorUs)} | ${us(f.promiseActorUs)} |`,
    `| delivery burst floor (${eventsText} × one event) | ${ms(floor.burstFloorMs)} | ${ms(f.burstFloorMs)} |`,
    `| the same events, each at its cost to one of ${n(SPREAD_ACTORS)} actors (the goal's floor) | ${ms(floor.spreadBurstFloorMs)} | ${ms(f.spreadBurstFloorMs)} |`,
    `| the same events at the flat logic's cost, plus one machine event per Session for its route | ${ms(floor.flatBurstFloorMs)} | ${ms(f.flatBurstFloorMs)} |`,
    `| that, each event at its cost to one of ${n(SPREAD_ACTORS)} actors | ${ms(floor.spreadFlatBurstFloorMs)} | ${ms(f.spreadFlatBurstFloorMs)} |`,
  ].join('\n');
}
