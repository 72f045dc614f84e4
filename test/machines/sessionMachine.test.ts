// The Session actor with a fake attempt runner: it spawns its tasks in one event, takes every due
// task into one attempt, asks the runner to deliver it and waits for the commit to settle it; an
// attempt that fails unexpectedly fails its tasks and tells its parent. Every case runs twice: on
// the machine through XState's own algorithm, and on the flat logic every Session actor runs.
import { createActor, setup } from 'xstate';
import type { DeliveryOutcome, DeliveryRequest } from '../../machines/events.ts';
import { type SessionMachine, sessionLogic, sessionMachine } from '../../machines/sessionMachine.ts';
import { TASK_GROUP_SIZE } from '../../machines/taskGroupMachine.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { attemptRunner } from '../support/attemptRunner.ts';
import { waitUntil } from '../support/waitUntil.ts';

const row = (id: string, scheduledAt: string): TaskRow => ({
  sessionId: 's1',
  status: 'active',
  record: { id, kind: 'every', title: id, prompt: 'p', scheduledAt, everySeconds: 600 },
});
const T = Date.parse('2030-01-01T08:10:00.000Z');

function harness(logic: SessionMachine) {
  const requests: DeliveryRequest[] = [];
  const parentEvents: Array<{ type: string }> = [];
  let release: ((o: DeliveryOutcome) => void) | null = null;
  let fail: ((error: Error) => void) | null = null;
  const attempts = attemptRunner(
    (request) =>
      new Promise<DeliveryOutcome>((resolve, reject) => {
        requests.push(request);
        release = resolve;
        fail = reject;
      }),
  );
  const parent = setup({ actors: { session: logic }, types: { events: {} as { type: string } } }).createMachine({
    invoke: { id: 'session', src: 'session', input: { sessionId: 's1', attempts } },
    on: { '*': { actions: ({ event }) => parentEvents.push(event) } },
  });
  const actor = createActor(parent).start();
  const ref = actor.getSnapshot().children.session!;
  type Snap = { value: unknown; children: Record<string, { getSnapshot(): Snap } | undefined> };
  /** The Session's task groups: id → the ids of the tasks each holds. */
  const groups = () =>
    Object.fromEntries(
      Object.entries(ref.getSnapshot().children as Record<string, { getSnapshot(): Snap }>)
        .filter(([id]) => id.startsWith('tasks:'))
        .map(([id, group]) => [id, Object.keys(group.getSnapshot().children).sort()]),
    );
  const task = (id: string) =>
    Object.values(ref.getSnapshot().children as Record<string, { getSnapshot(): Snap }>)
      .map((child) => child.getSnapshot().children?.[id])
      .find((t) => t !== undefined);
  return {
    send: (event: Parameters<typeof ref.send>[0]) => ref.send(event),
    state: () => ref.getSnapshot(),
    groups,
    taskIds: () => Object.values(groups()).flat().sort(),
    taskState: (id: string) => task(id)?.getSnapshot().value,
    requests,
    parentEvents,
    finish: (outcome: DeliveryOutcome) => release?.(outcome),
    crash: (error: Error) => fail?.(error),
  };
}

for (const [name, logic] of [
  ['XState', sessionMachine],
  ['flat logic', sessionLogic],
] as const) {
  describe(`session machine (${name})`, () => {
    it('has only top-level states, so its value is the state name that the runtime compares', () => {
      for (const state of Object.values(sessionMachine.root.states)) expect(Object.keys(state.states)).toEqual([]);
    });

    it('spawns all restored tasks in one event', () => {
      const h = harness(logic);
      h.send({ type: 'tasks.spawn', rows: [row('a', '2030-01-01T08:10:00.000Z'), row('b', '2030-01-01T09:00:00.000Z')] });
      expect(h.groups()).toEqual({ 'tasks:0': ['a', 'b'] });
      expect(h.taskState('a')).toBe('scheduled');
    });

    it('takes only the due tasks into one attempt, then waits for the commit', async () => {
      const h = harness(logic);
      h.send({
        type: 'tasks.spawn',
        rows: [row('a', '2030-01-01T08:10:00.000Z'), row('b', '2030-01-01T08:05:00.000Z'), row('c', '2030-01-01T09:00:00.000Z')],
      });
      h.send({ type: 'tasks.due', now: T, ids: ['a', 'b', 'c'] });
      expect(h.state().value).toBe('delivering');
      expect(h.requests).toHaveLength(1);
      expect(h.requests[0]?.rows.map((r) => r.record.id)).toEqual(['a', 'b']);
      expect(h.taskState('a')).toBe('delivering');
      expect(h.taskState('c')).toBe('scheduled');
      h.finish({ now: T, delivered: [], failedIds: [], unrecordableIds: [] });
      // The runner hands the outcome to the supervisor; the Session waits for its commit.
      await waitUntil(() => h.state().value === 'committing', 'the Session to wait for its commit');
      expect(h.parentEvents).toEqual([]);
      // a task that becomes due meanwhile waits for the next attempt
      h.send({ type: 'tasks.due', now: T + 1, ids: ['a'] });
      expect(h.requests).toHaveLength(1);
      h.send({
        type: 'delivery.settle',
        committed: [row('a', '2030-01-01T08:20:00.000Z')],
        failures: [{ ids: ['b'], failure: { stage: 'flush', message: 'flush failed', retry: { initialMs: 1000, maxMs: 4000 } } }],
        now: T,
      });
      expect(h.taskState('a')).toBe('scheduled');
      expect(h.taskState('b')).toBe('retrying');
      expect(h.state().value).toBe('idle');
    });

    it('removing a task stops its actor; a due id without a task starts no attempt', () => {
      const h = harness(logic);
      h.send({ type: 'tasks.spawn', rows: [row('a', '2030-01-01T08:10:00.000Z')] });
      h.send({ type: 'tasks.remove', ids: ['a'] });
      expect(h.taskIds()).toEqual([]);
      h.send({ type: 'tasks.due', now: T, ids: ['a'] });
      expect(h.requests).toHaveLength(0);
      expect(h.state().value).toBe('idle');
    });

    it('an attempt that ends with an unexpected error fails its tasks at the resolve stage and tells the parent', async () => {
      const h = harness(logic);
      h.send({ type: 'tasks.spawn', rows: [row('a', '2030-01-01T08:10:00.000Z'), row('b', '2030-01-01T08:10:00.000Z')] });
      h.send({ type: 'tasks.due', now: T, ids: ['a', 'b'] });
      expect(h.state().value).toBe('delivering');
      h.crash(new Error('the runner broke'));
      await waitUntil(() => h.state().value === 'idle', 'the Session to end its attempt');
      expect(h.taskState('a')).toBe('retrying');
      expect(h.taskState('b')).toBe('retrying');
      const failed = h.parentEvents.find((e) => e.type === 'tasks.failed') as { causes?: { ids: string[]; stage: string }[] } | undefined;
      expect(failed?.causes).toEqual([expect.objectContaining({ ids: ['a', 'b'], stage: 'resolve' })]);
      expect(h.parentEvents.map((e) => e.type)).not.toContain('delivery.flushed');
    });

    it('a Session without an attempt runner fails its attempt at once instead of waiting for ever', () => {
      const parentEvents: Array<{ type: string }> = [];
      const parent = setup({ actors: { session: logic }, types: { events: {} as { type: string } } }).createMachine({
        invoke: { id: 'session', src: 'session', input: { sessionId: 's1' } },
        on: { '*': { actions: ({ event }) => parentEvents.push(event) } },
      });
      const ref = createActor(parent).start().getSnapshot().children.session!;
      ref.send({ type: 'tasks.spawn', rows: [row('a', '2030-01-01T08:10:00.000Z')] });
      ref.send({ type: 'tasks.due', now: T, ids: ['a'] });
      expect(ref.getSnapshot().value).toBe('idle');
      expect(parentEvents.map((e) => e.type)).toContain('tasks.failed');
    });

    it('an ended one-shot is stopped after its commit', async () => {
      const h = harness(logic);
      h.send({ type: 'tasks.spawn', rows: [row('a', '2030-01-01T08:10:00.000Z')] });
      h.send({ type: 'tasks.due', now: T, ids: ['a'] });
      h.finish({ now: T, delivered: [], failedIds: [], unrecordableIds: [] });
      await waitUntil(() => h.state().value === 'committing', 'the Session to wait for its commit');
      h.send({
        type: 'delivery.settle',
        committed: [{ ...row('a', '2030-01-01T08:10:00.000Z'), status: 'inactive' }],
        failures: [],
        now: T,
      });
      expect(h.taskIds()).toEqual([]);
    });
  });

  describe(`task groups of a Session (${name})`, () => {
    const rows = (from: number, count: number) => Array.from({ length: count }, (_, i) => row(`t${from + i}`, '2030-01-01T09:00:00.000Z'));

    it(`restored tasks fill groups of ${TASK_GROUP_SIZE}; a new task goes to the first group with room`, () => {
      const h = harness(logic);
      h.send({ type: 'tasks.spawn', rows: rows(0, TASK_GROUP_SIZE + 10) });
      expect(Object.fromEntries(Object.entries(h.groups()).map(([id, ids]) => [id, ids.length]))).toEqual({
        'tasks:0': TASK_GROUP_SIZE,
        'tasks:1': 10,
      });
      h.send({ type: 'tasks.remove', ids: ['t0', 't1'] });
      h.send({ type: 'task.updated', row: row('new', '2030-01-01T09:00:00.000Z'), now: T });
      expect(h.groups()['tasks:0']).toContain('new');
      expect(h.groups()['tasks:0']).toHaveLength(TASK_GROUP_SIZE - 1);
      expect(h.taskIds()).toHaveLength(TASK_GROUP_SIZE + 9);
    });

    it('a put for a task the Session holds updates that actor wherever it lives, and due tasks of several groups form one attempt', () => {
      const h = harness(logic);
      h.send({ type: 'tasks.spawn', rows: rows(0, TASK_GROUP_SIZE + 1) });
      const last = `t${TASK_GROUP_SIZE}`;
      h.send({ type: 'task.updated', row: row(last, '2030-01-01T08:05:00.000Z'), now: T - 10 * 60_000 });
      expect(h.groups()['tasks:1']).toEqual([last]);
      expect(h.taskIds()).toHaveLength(TASK_GROUP_SIZE + 1);
      h.send({ type: 'task.updated', row: row('t0', '2030-01-01T08:06:00.000Z'), now: T - 10 * 60_000 });
      h.send({ type: 'tasks.due', now: T, ids: ['t0', last, 't1'] });
      expect(h.requests).toHaveLength(1);
      expect(h.requests[0]?.rows.map((r) => r.record.id).sort()).toEqual(['t0', last]);
      expect(h.taskState('t0')).toBe('delivering');
      expect(h.taskState(last)).toBe('delivering');
      expect(h.taskState('t1')).toBe('scheduled');
    });
  });
}
