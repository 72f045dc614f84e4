// The fast logic of a flat machine (machines/flatLogic.ts) against XState's own algorithm: the task
// logic every task actor runs takes, for random rows and random runs of every task event — ticks
// before and after the target and the retry time, starts, failures at every stage with retry on and
// off, commits and edits of due, paused, requested and ended rows, retries now — exactly the steps
// the task machine takes (state, context, status) and emits exactly the wakes it emits, and its
// snapshots are the machine's own. A machine the fast logic could not run exactly is refused when
// the logic is made.
import fc from 'fast-check';
import {
  type AnyActorRef,
  and,
  assign,
  createActor,
  type EventObject,
  fromPromise,
  fromTransition,
  initialTransition,
  setup,
  transition,
} from 'xstate';
import type { TaskWake } from '../../machines/events.ts';
import { type EffectArgs, flatMachineLogic, hearChildren, machineEffects, NotFlatError, type Outbox } from '../../machines/flatLogic.ts';
import { type TaskEvent, taskLogic, taskMachine } from '../../machines/taskMachine.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { formatInstant } from '../../src/domain/time/instant.ts';
import { runs } from '../support/runs.ts';

const T0 = Date.parse('2030-01-01T08:00:00.000Z');
const MINUTE = 60_000;
const at = (minutes: number): string => formatInstant(T0 + minutes * MINUTE);

/** Rows of a one-shot or a recurring task, due around T0, paused, run now or ended at random. */
const rowArb: fc.Arbitrary<TaskRow> = fc
  .record({
    recurring: fc.boolean(),
    target: fc.integer({ min: -30, max: 30 }),
    paused: fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }),
    triggered: fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }),
    ended: fc.boolean(),
  })
  .map(({ recurring, target, paused, triggered, ended }) => {
    const record: TaskRow['record'] = recurring
      ? { id: 'sch_1', kind: 'every', title: 't', prompt: 'p', scheduledAt: at(target), everySeconds: 600 }
      : { id: 'sch_1', kind: 'after', title: 't', prompt: 'p', scheduledAt: at(target), afterSeconds: 600 };
    if (ended) return { sessionId: 's1', status: 'inactive', record };
    return {
      sessionId: 's1',
      status: 'active',
      record,
      ...(paused === undefined ? {} : { pausedAt: at(paused) }),
      ...(triggered === undefined ? {} : { triggeredAt: at(triggered) }),
    };
  });

const nowArb = fc.integer({ min: -40, max: 40 }).map((minutes) => T0 + minutes * MINUTE);

const eventArb: fc.Arbitrary<TaskEvent> = fc.oneof(
  nowArb.map((now) => ({ type: 'clock.tick', now }) as const),
  fc.constant({ type: 'delivery.start' } as const),
  fc
    .record({
      now: nowArb,
      stage: fc.constantFrom('resolve', 'followup', 'flush', 'commit' as const),
      retry: fc.constantFrom(false as const, { initialMs: MINUTE, maxMs: 4 * MINUTE }),
    })
    .map(({ now, stage, retry }) => ({ type: 'delivery.failed', now, failure: { stage, message: 'failed', retry } }) as const),
  fc.record({ row: rowArb, now: nowArb }).map(({ row, now }) => ({ type: 'delivery.committed', row, now }) as const),
  fc.record({ row: rowArb, now: nowArb }).map(({ row, now }) => ({ type: 'task.updated', row, now }) as const),
  nowArb.map((now) => ({ type: 'delivery.retry', now }) as const),
);

const view = (s: { value: unknown; context: unknown; status: string }) => ({ value: s.value, context: s.context, status: s.status });

describe('flat machine logic: the task logic against XState', () => {
  it('takes the same steps as the task machine for random rows and runs of events', () => {
    fc.assert(
      fc.property(rowArb, fc.array(eventArb, { maxLength: 12 }), (row, events) => {
        let [reference] = initialTransition(taskMachine, { row });
        let [fast] = initialTransition(taskLogic, { row });
        expect(view(fast)).toEqual(view(reference));
        for (const event of events) {
          if (reference.status !== 'active') break;
          [reference] = transition(taskMachine, reference, event);
          [fast] = transition(taskLogic, fast, event);
          expect(view(fast)).toEqual(view(reference));
        }
      }),
      { numRuns: runs({ short: 800, long: 3_000 }) },
    );
  });

  it('every state, reached by the machine, answers every event as the machine does', () => {
    // From each state the machine reaches on some run, every kind of event (with sampled payloads).
    const reached = new Map<string, ReturnType<typeof initialTransition<typeof taskMachine>>[0]>();
    fc.assert(
      fc.property(rowArb, fc.array(eventArb, { maxLength: 8 }), (row, events) => {
        let [s] = initialTransition(taskMachine, { row });
        for (const event of events) {
          if (s.status !== 'active') break;
          [s] = transition(taskMachine, s, event);
          if (!reached.has(String(s.value))) reached.set(String(s.value), s);
        }
      }),
      // Seeded: which states the generated cases reach is asserted below.
      { numRuns: 500, seed: 7 },
    );
    expect([...reached.keys()].sort()).toEqual(Object.keys(taskMachine.states).sort());
    const samples = fc.sample(eventArb, { numRuns: 400, seed: 7 });
    for (const snapshot of reached.values()) {
      for (const event of samples) {
        if (snapshot.status !== 'active') continue;
        const [reference] = transition(taskMachine, snapshot, event);
        const [fast] = transition(taskLogic, snapshot, event);
        expect(view(fast)).toEqual(view(reference));
      }
    }
  });

  it('emits the same wakes, after the same events, as the task machine', () => {
    /** Each step of an actor of `logic` over `events`: its state and the wakes it emitted during the step. */
    const steps = (logic: typeof taskMachine, row: TaskRow, events: readonly TaskEvent[]) => {
      const actor = createActor(logic, { input: { row } });
      let heard: TaskWake[] = [];
      actor.on('task.wake', (wake) => heard.push(wake));
      actor.start();
      const out: Array<{ value: unknown; wakes: TaskWake[] }> = [];
      for (const event of events) {
        if (actor.getSnapshot().status !== 'active') break;
        actor.send(event);
        out.push({ value: actor.getSnapshot().value, wakes: heard });
        heard = [];
      }
      return out;
    };
    let emitted = 0;
    fc.assert(
      fc.property(rowArb, fc.array(eventArb, { maxLength: 12 }), (row, events) => {
        const fast = steps(taskLogic, row, events);
        expect(fast).toEqual(steps(taskMachine, row, events));
        emitted += fast.reduce((n, step) => n + step.wakes.length, 0);
      }),
      // Seeded: the count below is over the cases generated, and a random seed once drew exactly 100.
      { numRuns: 1000, seed: 7 },
    );
    // The runs reach the transitions that report.
    expect(emitted).toBeGreaterThan(100);
  });

  it("its snapshots are the machine's: matches, can, tags and the persisted form", () => {
    const row: TaskRow = {
      sessionId: 's1',
      status: 'active',
      record: { id: 'sch_1', kind: 'every', title: 't', prompt: 'p', scheduledAt: at(0), everySeconds: 600 },
    };
    const [reference] = transition(taskMachine, initialTransition(taskMachine, { row })[0], { type: 'clock.tick', now: T0 });
    const [fast] = transition(taskLogic, initialTransition(taskLogic, { row })[0], { type: 'clock.tick', now: T0 });
    expect(fast.matches('overdue')).toBe(true);
    expect(fast.can({ type: 'delivery.start' })).toBe(true);
    expect(fast.can({ type: 'delivery.committed', row, now: T0 })).toBe(false);
    expect([...fast.tags]).toEqual([...reference.tags]);
    expect(taskLogic.getPersistedSnapshot(fast)).toEqual(taskMachine.getPersistedSnapshot(reference));
    expect(JSON.parse(JSON.stringify(fast))).toEqual(JSON.parse(JSON.stringify(reference)));
  });

  it('an actor of the logic ends done at inactive and can be stopped like any other', () => {
    const row: TaskRow = {
      sessionId: 's1',
      status: 'active',
      record: { id: 'sch_1', kind: 'after', title: 't', prompt: 'p', scheduledAt: at(0), afterSeconds: 60 },
    };
    const done = createActor(taskLogic, { input: { row } }).start();
    done.send({ type: 'clock.tick', now: T0 });
    done.send({ type: 'delivery.start' });
    done.send({ type: 'delivery.committed', row: { ...row, status: 'inactive' }, now: T0 });
    expect(done.getSnapshot()).toMatchObject({ value: 'inactive', status: 'done' });
    const stopped = createActor(taskLogic, { input: { row } }).start();
    stopped.stop();
    expect(stopped.getSnapshot().status).toBe('stopped');
  });
});

describe('flat machine logic: what a flat machine may hold', () => {
  // Two updates on one transition, a targetless transition, a transition on the root that every
  // state falls back to, eventless transitions in a chain, and a final state.
  type Ctx = { readonly n: number; readonly log: string };
  type Ev = { type: 'add'; by: number } | { type: 'twice' } | { type: 'reset' } | { type: 'end' };
  const guards = {
    big: (c: Ctx) => c.n >= 10,
    odd: (c: Ctx) => c.n % 2 === 1,
    positive: (_c: Ctx, e: Ev) => e.type === 'add' && e.by > 0,
  };
  const updates = {
    add: (c: Ctx, e: Ev) => ({ n: c.n + (e.type === 'add' ? e.by : 0) }),
    double: (c: Ctx) => ({ n: c.n * 2 }),
    note: (c: Ctx, e: Ev) => ({ log: `${c.log}${e.type[0]}` }),
    zero: () => ({ n: 0 }),
  };
  const toy = setup({
    types: { context: {} as Ctx, events: {} as Ev },
    guards: {
      big: ({ context }) => guards.big(context),
      odd: ({ context }) => guards.odd(context),
      positive: ({ context, event }) => guards.positive(context, event),
    },
    actions: {
      add: assign(({ context, event }) => updates.add(context, event)),
      double: assign(({ context }) => updates.double(context)),
      note: assign(({ context, event }) => updates.note(context, event)),
      zero: assign(() => updates.zero()),
    },
  }).createMachine({
    context: { n: 0, log: '' },
    initial: 'low',
    on: { reset: { target: '.low', actions: ['zero', 'note'] } },
    states: {
      low: {
        always: { guard: 'big', target: 'high' },
        on: {
          add: [{ guard: 'positive', actions: ['add', 'note'] }, { actions: 'note' }],
          twice: { target: 'odd', actions: ['double', 'note'] },
        },
      },
      odd: { always: [{ guard: 'odd', target: 'high' }, { target: 'low' }] },
      high: { on: { add: { actions: ['add', 'double', 'note'] }, end: 'over' } },
      over: { type: 'final' },
    },
  });
  const fast = flatMachineLogic(toy, { guards, updates });
  const events: fc.Arbitrary<Ev> = fc.oneof(
    fc.integer({ min: -3, max: 5 }).map((by) => ({ type: 'add', by }) as const),
    fc.constant({ type: 'twice' } as const),
    fc.constant({ type: 'reset' } as const),
    fc.constant({ type: 'end' } as const),
  );

  it('takes the same steps as XState on random runs', () => {
    fc.assert(
      fc.property(fc.array(events, { maxLength: 20 }), (run) => {
        let [reference] = initialTransition(toy);
        let [mine] = initialTransition(fast);
        for (const event of run) {
          if (reference.status !== 'active') break;
          [reference] = transition(toy, reference, event);
          [mine] = transition(fast, mine, event);
          expect(view(mine)).toEqual(view(reference));
        }
      }),
      { numRuns: runs({ short: 500, long: 2_000 }) },
    );
  });
});

describe('flat machine logic: entry actions, effects and delegated events', () => {
  // Effects that send to another actor and to the actor itself, emit, and update the context, entry
  // actions (on a state entered by an event and by an eventless transition), and an event whose
  // inline action only XState's own algorithm runs (delegated).
  type Ctx = { readonly n: number; readonly log: string; readonly sink: AnyActorRef };
  type Ev = { type: 'ping' } | { type: 'go' } | { type: 'poke' } | { type: 'grow' } | { type: 'end' };
  type Echoed = { type: 'echoed'; n: number };
  const guards = {
    big: (c: Ctx) => c.n >= 10,
    oddSmall: (c: Ctx) => c.n % 2 === 1 && c.n < 10,
  };
  const updates = { note: (c: Ctx, e: Ev) => ({ log: `${c.log}${e.type[0]}` }) };
  const effects = {
    echo: ({ context, event }: EffectArgs<Ctx, Ev>, outbox: Outbox) => {
      outbox.send(context.sink, { type: 'echo', n: context.n, on: event.type });
      outbox.emit({ type: 'echoed', n: context.n });
      return { n: context.n + 1 };
    },
    report: ({ context, self }: EffectArgs<Ctx, Ev>, outbox: Outbox) => {
      // The actor's snapshot is the one before the step, as in XState.
      outbox.send(context.sink, { type: 'report', n: context.n, was: String(self.getSnapshot().value) });
      return undefined;
    },
    poke: ({ self }: EffectArgs<Ctx, Ev>, outbox: Outbox) => {
      outbox.send(self, { type: 'poke' });
      return undefined;
    },
  };
  const toy = setup({
    types: { context: {} as Ctx, events: {} as Ev, input: {} as { sink: AnyActorRef }, emitted: {} as Echoed },
    guards: { big: ({ context }) => guards.big(context), oddSmall: ({ context }) => guards.oddSmall(context) },
    actions: {
      note: assign(({ context, event }) => updates.note(context, event)),
      ...machineEffects<Ctx, Ev, typeof effects, Echoed>(effects),
    },
  }).createMachine({
    context: ({ input }) => ({ n: 0, log: '', sink: input.sink }),
    initial: 'a',
    on: { grow: { actions: assign(({ context }) => ({ n: context.n + 3 })) } },
    states: {
      a: { always: { guard: 'big', target: 'c' }, on: { ping: { actions: 'echo' }, go: { target: 'b', actions: 'note' } } },
      b: { entry: ['note', 'report', 'poke'], on: { poke: 'a', ping: { target: 'c', actions: 'echo' } } },
      c: { entry: 'report', always: { guard: 'oddSmall', target: 'a' }, on: { go: 'b', end: 'done', ping: { actions: ['echo', 'note'] } } },
      done: { type: 'final' },
    },
  });
  const fast = flatMachineLogic(toy, { guards, updates, effects, delegated: ['grow'] });
  const events: fc.Arbitrary<Ev> = fc.constantFrom<Ev>(
    { type: 'ping' },
    { type: 'go' },
    { type: 'poke' },
    { type: 'grow' },
    { type: 'end' },
  );
  const sinkLogic = fromTransition((log: readonly EventObject[], event: EventObject) => [...log, event], [] as readonly EventObject[]);
  const run = (logic: typeof toy, events: readonly Ev[]) => {
    const sink = createActor(sinkLogic).start();
    const actor = createActor(logic, { input: { sink } });
    // Emitted events, each with how many sent ones the sink had received by then (their order).
    const emitted: Array<{ n: number; after: number }> = [];
    actor.on('echoed', ({ n }) => emitted.push({ n, after: sink.getSnapshot().context.length }));
    actor.start();
    const steps = [];
    for (const event of events) {
      actor.send(event);
      const { value, context, status } = actor.getSnapshot();
      steps.push({ value, n: context.n, log: context.log, status, received: sink.getSnapshot().context.length });
    }
    return { steps, received: sink.getSnapshot().context, emitted };
  };

  it('sends and emits the same events, in the same order, and takes the same steps as XState on random runs', () => {
    fc.assert(
      fc.property(fc.array(events, { maxLength: 25 }), (events) => {
        expect(run(fast, events)).toEqual(run(toy, events));
      }),
      { numRuns: runs({ short: 300, long: 1_000 }) },
    );
  });

  it('a run that goes through every kind of action sends what the machine says', () => {
    const { received, steps, emitted } = run(fast, [
      { type: 'ping' },
      { type: 'go' },
      { type: 'grow' },
      { type: 'grow' },
      { type: 'grow' },
      { type: 'ping' },
    ]);
    expect(received).toEqual([
      { type: 'echo', n: 0, on: 'ping' },
      { type: 'report', n: 1, was: 'a' },
      { type: 'report', n: 10, was: 'a' },
      { type: 'echo', n: 10, on: 'ping' },
    ]);
    expect(emitted).toEqual([
      { n: 0, after: 1 },
      { n: 10, after: 4 },
    ]);
    expect(steps.at(-1)).toMatchObject({ value: 'c', n: 11, log: 'ggp' });
  });

  it('a parent hears what each of its children emits through one listener, as the children themselves do', () => {
    /** What a parent of two children of `logic` heard, and what child one's own listener heard. */
    const hearing = (logic: typeof toy) => {
      const sink = createActor(sinkLogic).start();
      const parentHeard: string[] = [];
      const parentLogic = setup({ types: { context: {} as { children: AnyActorRef[] } }, actors: { child: logic } }).createMachine({
        context: ({ spawn, self }) => {
          hearChildren(self, (event) => parentHeard.push(`${event.type} ${(event as Echoed).n}`));
          return { children: [spawn('child', { id: 'one', input: { sink } }), spawn('child', { id: 'two', input: { sink } })] };
        },
      });
      const [one, two] = createActor(parentLogic).start().getSnapshot().context.children as [AnyActorRef, AnyActorRef];
      const oneHeard: string[] = [];
      one.on('echoed', ({ n }: Echoed) => oneHeard.push(`echoed ${n}`));
      for (const child of [one, two, one, one]) child.send({ type: 'ping' });
      return { parentHeard, oneHeard };
    };
    expect(hearing(fast)).toEqual({
      parentHeard: ['echoed 0', 'echoed 0', 'echoed 1', 'echoed 2'],
      oneHeard: ['echoed 0', 'echoed 1', 'echoed 2'],
    });
    expect(hearing(toy)).toEqual(hearing(fast));
  });
});

describe('flat machine logic: machines it refuses', () => {
  type E = { type: 'go' };
  const base = setup({
    types: { context: {} as { n: number }, events: {} as E },
    guards: { yes: () => true },
    actions: { bump: () => undefined },
    actors: { work: fromPromise(async () => 1) },
  });
  const behaviour = { guards: { yes: () => true }, updates: { bump: (c: { n: number }) => ({ n: c.n + 1 }) } };
  const refusals: Array<[string, Parameters<typeof flatMachineLogic>[0], RegExp]> = [
    [
      'a nested state',
      base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { initial: 'b', states: { b: {} } } } }),
      /child states|compound/,
    ],
    ['exit actions', base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { exit: 'bump' } } }), /exit actions/],
    [
      'a transition that may re-enter a state with entry actions',
      base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { entry: 'bump', on: { go: 'a' } } } }),
      /re-enter 'a'/,
    ],
    [
      'a root transition to a state with entry actions',
      base.createMachine({ context: { n: 0 }, initial: 'a', on: { go: '.b' }, states: { a: {}, b: { entry: 'bump' } } }),
      /re-enter 'b'/,
    ],
    [
      'an inline action outside the delegated events',
      base.createMachine({ context: { n: 0 }, initial: 'a', on: { go: { actions: assign({ n: 1 }) } }, states: { a: {} } }),
      /not named/,
    ],
    ['an invoked actor', base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { invoke: { src: 'work' } } } }), /invokes/],
    [
      'a delayed transition',
      base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { after: { 10: 'b' } }, b: {} } }),
      /delayed/,
    ],
    [
      'a combined guard',
      base.createMachine({
        context: { n: 0 },
        initial: 'a',
        states: { a: { on: { go: { guard: and(['yes', 'yes']), target: 'b' } } }, b: {} },
      }),
      /not named/,
    ],
    [
      'an inline action',
      base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { on: { go: { actions: () => undefined } } } } }),
      /not named/,
    ],
    [
      'an unknown guard',
      base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { on: { go: { guard: 'yes' } } } } }),
      /not among/,
    ],
    [
      'a wildcard event',
      base.createMachine({ context: { n: 0 }, initial: 'a', states: { a: { on: { '*': { actions: 'bump' } } } } }),
      /wildcard/,
    ],
  ];
  for (const [what, machine, reason] of refusals) {
    it(`refuses ${what}`, () => {
      const given = what === 'an unknown guard' ? { ...behaviour, guards: {} } : behaviour;
      expect(() => flatMachineLogic(machine, given as never)).toThrow(NotFlatError);
      expect(() => flatMachineLogic(machine, given as never)).toThrow(reason);
    });
  }
});
