// A Host built on XState invokes one Host of a cluster as a child actor, on PGlite: a tiny parent
// machine invokes `clusterSupervisor` with the cluster's options, sends `schedule.call` events
// (the first before the cluster is joined), gets each `schedule.reply` typed by its operation —
// a view for a create, a refusal (`ok: true`, `schedule_not_found`) for a pause of an unknown id — and a
// `schedule.changed`; `schedule.close` leaves the cluster and ends the child, the parent's onDone.
import { assign, createActor, sendTo, setup } from 'xstate';
import { isRefusal, type ScheduleCall, type ScheduleChangedEvent, type ScheduleReplyEvent } from '../../machines/index.ts';
import type { ClusterServiceOptions } from '../../src/cluster/clusterService.ts';
import { clusterSupervisor } from '../../src/cluster/clusterSupervisor.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { pgliteListener, randomSchema, run, usePglite } from '../storage/postgresHarness.ts';

const db = usePglite();
const T0 = '2030-01-01T08:00:00.000Z';

/** Keeper timers that never fire: the keeper takes its share once, when the cluster is joined. */
const stillTimers = { setTimeout: () => 0, clearTimeout: () => undefined };

const parentMachine = setup({
  types: {
    input: {} as ClusterServiceOptions,
    context: {} as {
      readonly options: ClusterServiceOptions;
      readonly replies: readonly ScheduleReplyEvent[];
      readonly changes: readonly ScheduleChangedEvent[];
    },
    events: {} as
      | { readonly type: 'ask'; readonly requestId: string; readonly call: ScheduleCall }
      | { readonly type: 'shutdown' }
      | ScheduleReplyEvent
      | ScheduleChangedEvent,
  },
  actors: { cluster: clusterSupervisor },
}).createMachine({
  context: ({ input }) => ({ options: input, replies: [], changes: [] }),
  initial: 'running',
  states: {
    running: {
      invoke: { id: 'cluster', src: 'cluster', input: ({ context }) => context.options, onDone: 'stopped', onError: 'failed' },
      on: {
        ask: {
          actions: sendTo('cluster', ({ event }) => ({ type: 'schedule.call' as const, requestId: event.requestId, call: event.call })),
        },
        shutdown: { actions: sendTo('cluster', { type: 'schedule.close' as const }) },
        'schedule.reply': { actions: assign({ replies: ({ context, event }) => [...context.replies, event] }) },
        'schedule.changed': { actions: assign({ changes: ({ context, event }) => [...context.changes, event] }) },
      },
    },
    stopped: { type: 'final' },
    failed: { type: 'final' },
  },
});

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 20_000 && !check(); i++) await macrotask();
  expect(check(), 'condition not reached').toBe(true);
}

test('a parent machine invokes a cluster Host as a child actor and reads typed replies', async () => {
  const schema = randomSchema();
  db.schemas.push(schema);
  const sessions = createFakeSessions();
  const parent = createActor(parentMachine, {
    input: {
      pool: db.pool,
      keeperPool: db.pool,
      schema,
      hostId: 'host-xstate',
      sessions,
      clock: createManualClock(T0),
      logger: { warn() {}, error() {} },
      timers: stillTimers,
      routing: { listen: pgliteListener(() => db.db), pollMs: 25 },
    },
  }).start();
  const reply = (requestId: string) => parent.getSnapshot().context.replies.find((r) => r.requestId === requestId);

  // Sent while the cluster is being joined: it waits and is answered once the Host holds its shards.
  const args = { title: 'Stand-up', prompt: 'join the stand-up call', after_seconds: 60 };
  parent.send({ type: 'ask', requestId: 'c1', call: { kind: 'tool', sessionId: 'user-1', name: 'schedule_create', args } });
  await until(() => reply('c1') !== undefined);
  const created = reply('c1');
  if (created?.op !== 'schedule_create' || !created.ok || isRefusal(created.value))
    throw new Error(`create failed: ${JSON.stringify(created)}`);
  const id: string = created.value.id;
  expect(created.value).toMatchObject({ title: 'Stand-up', state: 'scheduled' });
  await until(() => parent.getSnapshot().context.changes.length > 0);
  expect(parent.getSnapshot().context.changes).toEqual([{ type: 'schedule.changed', sessionId: 'user-1', ids: [id] }]);

  parent.send({
    type: 'ask',
    requestId: 'p1',
    call: { kind: 'remote', method: 'pause', request: { sessionId: 'user-1', id: 'sch_missing' } },
  });
  parent.send({ type: 'ask', requestId: 'l1', call: { kind: 'remote', method: 'list', request: { sessionId: 'user-1' } } });
  await until(() => reply('p1') !== undefined && reply('l1') !== undefined);
  const refused = reply('p1');
  expect(refused).toMatchObject({ op: 'remote.pause', ok: true, value: { code: 'schedule_not_found' } });
  const listed = reply('l1');
  expect(listed?.op === 'remote.list' && listed.ok && !isRefusal(listed.value) ? listed.value.map((view) => view.id) : []).toEqual([id]);
  expect((await run(db.pool, `select id from ${schema}.tasks`)).rows).toEqual([{ id }]);

  parent.send({ type: 'shutdown' });
  await until(() => parent.getSnapshot().status === 'done');
  expect(parent.getSnapshot().value).toBe('stopped');
  // The Host left the cluster: no shard is leased to it any more.
  expect((await run(db.pool, `select count(*)::int as n from ${schema}.shard_leases where owner = 'host-xstate'`)).rows).toEqual([
    { n: 0 },
  ]);
});

test('a cluster that cannot be joined ends the child with an error, which reaches the invoke’s onError', async () => {
  const parent = createActor(parentMachine, {
    input: { pool: db.pool, keeperPool: db.pool, schema: randomSchema(), hostId: '', sessions: createFakeSessions(), timers: stillTimers },
  }).start();
  await until(() => parent.getSnapshot().status === 'done');
  expect(parent.getSnapshot().value).toBe('failed');
});
