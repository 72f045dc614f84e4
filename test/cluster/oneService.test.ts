// One API for one Host or many: the same scenario runs through `createScheduleService` over a
// memory storage and over three Hosts sharing one PostgreSQL schema (`postgresStorage({ …,
// cluster })` on PGlite), each call made at a Host in turn — options (`format`, `callId`), the
// order of calls made without awaiting, refusals, the change notifications and one delivery of a
// reminder wherever its Session's shard is held. Then three Host machines each invoke
// `scheduleSupervisor` over the shared storage and speak the supervisor's protocol to it.
import { assign, createActor, sendTo, setup } from 'xstate';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { createConsole } from '../../src/console/index.ts';
import type { ScheduleCall, ScheduleChangedEvent, ScheduleReplyEvent } from '../../src/entries/machines.ts';
import { scheduleSupervisor } from '../../src/entries/machines.ts';
import { postgresStorage } from '../../src/entries/postgres.ts';
import { shardOf } from '../../src/index.ts';
import type { ScheduleStorage } from '../../src/ports.ts';
import { createScheduleService, type ScheduleChange, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';
import { pgliteListener, randomSchema, run, usePglite } from '../storage/postgresHarness.ts';
import { waitUntil } from '../support/waitUntil.ts';

const db = usePglite();
const T0 = '2030-01-01T08:00:00.000Z';
const quiet = { warn() {}, error() {} };
const stretch = { title: 'Stretch', prompt: 'stand up and stretch' };

/**
 * Moves time by `ms`, then fires what falls due now until `done()` holds: a shard a Host opens
 * later (as leases settle) sets its timers on the manual clock, which fires only when moved.
 */
async function advanceUntil(clock: ManualClock, ms: number, done: () => boolean, what: string): Promise<void> {
  await clock.advance(ms);
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited 20000 ms for ${what}, and it never happened`);
    await clock.advance(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A storage three Hosts share on a fresh schema, for Host `hostId`. */
function sharedStorage(schema: string) {
  return (hostId: string): ScheduleStorage =>
    postgresStorage({
      pool: db.pool,
      schema,
      cluster: {
        hostId,
        leaseMs: 15_000,
        // PGlite is one connection: the keepers share it, and notifications come from the database itself.
        keeperPool: db.pool,
        routing: { listen: pgliteListener(() => db.db), pollMs: 25, timeoutMs: 10_000 },
      },
    });
}

/** A fresh shared schema (dropped after the test), with one manual clock and one set of fake Sessions for its Hosts. */
function sharedSchema() {
  const schema = randomSchema();
  db.schemas.push(schema);
  return { schema, clock: createManualClock(T0), sessions: createFakeSessions(), storage: sharedStorage(schema) };
}

interface Deployment {
  readonly hosts: readonly ScheduleService[];
  readonly clock: ManualClock;
  readonly sessions: FakeSessions;
}

/** The same calls, at Host i % n for the i-th call: what a Host sees does not depend on how many there are. */
async function scenario({ hosts, clock, sessions }: Deployment): Promise<void> {
  const at = (i: number): ScheduleService => hosts[i % hosts.length]!;
  const changes: ScheduleChange[][] = hosts.map(() => []);
  for (const [i, host] of hosts.entries()) host.subscribe((change) => changes[i]?.push(change));

  // Made without awaiting: the catalog runs after the create and holds it.
  const creating = at(0).callTool('s1', 'schedule_create', { ...stretch, after_seconds: 60 }, { callId: 'call-1' });
  const catalog = at(0).remote.catalog({ limit: 10 });
  const created = await creating;
  if ('code' in created) throw new Error(`create refused: ${created.message}`);
  const page = await catalog;
  expect('entries' in page ? page.entries.map((entry) => entry.record.id) : page).toEqual([created.id]);

  // The same call id at another Host answers the first answer and creates nothing.
  const again = await at(1).callTool('s1', 'schedule_create', { ...stretch, after_seconds: 60 }, { callId: 'call-1' });
  expect(again).toEqual(created);
  const conflict = await at(2).callTool('s1', 'schedule_create', { ...stretch, after_seconds: 90 }, { callId: 'call-1' });
  expect(conflict).toMatchObject({ code: 'idempotency_conflict' });

  // The strict format reads null members as absent, at any Host.
  const strict = await at(1).callTool('s1', 'schedule_list', { include_inactive: null }, { format: 'openai-strict' });
  expect(Array.isArray(strict) ? strict.map((view) => view.id) : strict).toEqual([created.id]);
  expect(await at(2).callTool('s1', 'schedule_update', { id: 'sch_missing', title: 'x' })).toMatchObject({ code: 'schedule_not_found' });
  expect(await at(2).remote.pause({ sessionId: 's1', id: 'sch_missing' })).toMatchObject({ code: 'schedule_not_found' });

  // Every Host's subscribers hear of the create, wherever it was committed.
  await waitUntil(() => changes.every((heard) => heard.some((change) => change.ids.includes(created.id))), 'the create told at every Host');

  await advanceUntil(clock, 60_000, () => sessions.messages('s1').length === 1, 'the reminder delivered');
  await Promise.all(hosts.map((host) => host.whenIdle()));
  expect(sessions.messages('s1')).toHaveLength(1);
  expect(sessions.messages('s1')[0]!.text).toContain(created.id);
  const listed = await at(2).remote.list({ sessionId: 's1' });
  expect(listed).toEqual([]);
}

test('one Host on a memory storage runs the scenario', async () => {
  const clock = createManualClock(T0);
  const sessions = createFakeSessions();
  const host = await createScheduleService({ sessions, clock, storage: memoryStorage(), logger: quiet });
  try {
    expect(host.cluster).toBeUndefined();
    await scenario({ hosts: [host], clock, sessions });
    const console = createConsole({ service: host, logger: quiet });
    const answer = await console.fetch(new Request('http://127.0.0.1/api/sessions/s1/tasks'));
    expect([answer.status, answer.headers.get('x-schedule-owner'), answer.headers.get('x-schedule-shard')]).toEqual([200, null, null]);
    await console.close();
  } finally {
    await host.close();
  }
});

test('three Hosts on one shared PostgreSQL schema run the same scenario through the same API', async () => {
  const { schema, clock, sessions, storage } = sharedSchema();
  const hosts: ScheduleService[] = [];
  try {
    for (const hostId of ['host-a', 'host-b', 'host-c']) {
      hosts.push(await createScheduleService({ sessions, clock, storage: storage(hostId), logger: quiet }));
    }
    expect(hosts.map((host) => host.cluster?.hostId)).toEqual(['host-a', 'host-b', 'host-c']);
    // Every shard is held by one of them, and each names the same owner for a Session.
    await waitUntil(() => hosts.reduce((sum, host) => sum + (host.cluster?.held().size ?? 0), 0) === 256, 'all 256 shards held');
    const owners = await Promise.all(hosts.map((host) => host.cluster?.ownerOf('s1')));
    expect(new Set(owners).size).toBe(1);
    expect(['host-a', 'host-b', 'host-c']).toContain(owners[0]);
    await scenario({ hosts, clock, sessions });
    expect((await run(db.pool, `select count(*)::int as n from ${schema}.tasks`)).rows).toEqual([{ n: 1 }]);

    // The console names the Session's owner and shard on an answer about it, for a load balancer.
    const console = createConsole({ service: hosts[1]!, logger: quiet });
    const answer = await console.fetch(new Request('http://127.0.0.1/api/sessions/s1/tasks'));
    expect(answer.status).toBe(200);
    expect([answer.headers.get('x-schedule-owner'), answer.headers.get('x-schedule-shard')]).toEqual([owners[0], String(shardOf('s1'))]);
    await console.close();
  } finally {
    for (const host of hosts) await host.close();
  }
  expect(
    (await run(db.pool, `select count(*)::int as n from ${schema}.shard_leases where owner is not null and expires_at > now()`)).rows,
  ).toEqual([{ n: 0 }]);
});

const hostMachine = setup({
  types: {
    input: {} as { readonly storage: ScheduleStorage; readonly sessions: FakeSessions; readonly clock: ManualClock },
    context: {} as {
      readonly ports: { readonly storage: ScheduleStorage; readonly sessions: FakeSessions; readonly clock: ManualClock };
      readonly replies: readonly ScheduleReplyEvent[];
      readonly changes: readonly ScheduleChangedEvent[];
      readonly error: unknown;
    },
    events: {} as
      | { readonly type: 'ask'; readonly requestId: string; readonly call: ScheduleCall }
      | { readonly type: 'shutdown' }
      | ScheduleReplyEvent
      | ScheduleChangedEvent,
  },
  actors: { schedule: scheduleSupervisor },
}).createMachine({
  context: ({ input }) => ({ ports: input, replies: [], changes: [], error: null }),
  initial: 'running',
  states: {
    running: {
      invoke: {
        id: 'schedule',
        src: 'schedule',
        input: ({ context }) => ({ ...context.ports, logger: quiet }),
        onDone: 'stopped',
        onError: { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
      },
      on: {
        ask: {
          actions: sendTo('schedule', ({ event }) => ({ type: 'schedule.call' as const, requestId: event.requestId, call: event.call })),
        },
        shutdown: { actions: sendTo('schedule', { type: 'schedule.close' as const }) },
        'schedule.reply': { actions: assign({ replies: ({ context, event }) => [...context.replies, event] }) },
        'schedule.changed': { actions: assign({ changes: ({ context, event }) => [...context.changes, event] }) },
      },
    },
    stopped: { type: 'final' },
    failed: { type: 'final' },
  },
});

test('three Host machines each invoke scheduleSupervisor over one shared schema and speak its protocol', async () => {
  const { schema, clock, sessions, storage } = sharedSchema();
  const machines = ['host-a', 'host-b', 'host-c'].map((hostId) =>
    createActor(hostMachine, { input: { storage: storage(hostId), sessions, clock } }).start(),
  );
  const [a, b, c] = machines as [(typeof machines)[0], (typeof machines)[0], (typeof machines)[0]];
  const reply = (machine: typeof a, requestId: string) => machine.getSnapshot().context.replies.find((r) => r.requestId === requestId);

  // Sent while the cluster is being joined; the catalog, sent right after, holds the create.
  a.send({
    type: 'ask',
    requestId: 'c1',
    call: { kind: 'tool', sessionId: 's1', name: 'schedule_create', args: { ...stretch, after_seconds: 60 } },
  });
  a.send({ type: 'ask', requestId: 'c2', call: { kind: 'remote', method: 'catalog' } });
  await waitUntil(() => reply(a, 'c1') !== undefined && reply(a, 'c2') !== undefined, 'the create and the catalog answered');
  const created = reply(a, 'c1');
  if (created?.op !== 'schedule_create' || !created.ok || 'code' in created.value)
    throw new Error(`create failed: ${JSON.stringify(created)}`);
  const id = created.value.id;
  const catalog = reply(a, 'c2');
  expect(
    catalog?.op === 'remote.catalog' && catalog.ok && Array.isArray(catalog.value) ? catalog.value.map((e) => e.record.id) : catalog,
  ).toEqual([id]);

  // Another Host's supervisor answers for the same Session; a refusal is a reply with ok: true.
  b.send({ type: 'ask', requestId: 'l1', call: { kind: 'remote', method: 'list', request: { sessionId: 's1' } } });
  c.send({
    type: 'ask',
    requestId: 'u1',
    call: { kind: 'tool', sessionId: 's1', name: 'schedule_update', args: { id: 'sch_missing', title: 'x' } },
  });
  await waitUntil(() => reply(b, 'l1') !== undefined && reply(c, 'u1') !== undefined, 'the list and the update answered');
  const listed = reply(b, 'l1');
  expect(listed?.op === 'remote.list' && listed.ok && Array.isArray(listed.value) ? listed.value.map((view) => view.id) : listed).toEqual([
    id,
  ]);
  expect(reply(c, 'u1')).toMatchObject({ op: 'schedule_update', ok: true, value: { code: 'schedule_not_found' } });

  // Each Host's parent hears of the change, wherever it was committed.
  await waitUntil(
    () => machines.every((m) => m.getSnapshot().context.changes.some((change) => change.ids.includes(id))),
    'the change told to every parent',
  );

  await advanceUntil(clock, 60_000, () => sessions.messages('s1').length === 1, 'the reminder delivered');

  for (const machine of machines) machine.send({ type: 'shutdown' });
  await waitUntil(() => machines.every((m) => m.getSnapshot().status === 'done'), 'every supervisor closed');
  expect(machines.map((m) => [m.getSnapshot().value, m.getSnapshot().context.error])).toEqual([
    ['stopped', null],
    ['stopped', null],
    ['stopped', null],
  ]);
  expect(sessions.messages('s1')).toHaveLength(1);
  expect(
    (await run(db.pool, `select count(*)::int as n from ${schema}.shard_leases where owner is not null and expires_at > now()`)).rows,
  ).toEqual([{ n: 0 }]);
});

test('a shared storage is joined, not opened, and takes no single-Host options', async () => {
  const shared = sharedStorage(randomSchema())('host-x');
  await expect(shared.open()).rejects.toMatchObject({ code: 'internal_error', message: expect.stringMatching(/joined, not opened/) });
  expect(() => postgresStorage({ pool: db.pool, shards: [1], cluster: { hostId: 'h' } } as never)).toThrow(/either cluster or shards/);
});
