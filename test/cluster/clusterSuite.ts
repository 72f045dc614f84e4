// Two Hosts on one PostgreSQL schema, each stepping its lease keeper at the test's pace:
// they settle at 128 shards each; a tool call made at either Host for a Session of the other's
// shard gets the owner's answer, and the task's row is in the database once, under the owner's
// epoch; the owner delivers the reminder when it falls due. When one Host closes (its shards
// handed back after their work in flight), the other takes every shard over at a higher epoch,
// restores the tasks there and answers for every Session itself. A change made at one Host
// reaches the subscribers of both. A Host whose lease another took commits nothing there, and one
// whose lease ran out by its own clock (as after a pause) appends no reminder there. A Host's
// health and its shards-held metric follow its leases.

import type { NotificationListener } from '../../src/adapters/postgres/callRouter.ts';
import { type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';
import type { KeeperTimers } from '../../src/adapters/postgres/shardKeeper.ts';
import { type ClusterService, type ClusterServiceOptions, createClusterService } from '../../src/cluster/clusterService.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { randomSchema, run } from '../storage/postgresHarness.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const quiet = { warn() {}, error() {} };

/** Where the Hosts meet: a pool, the schemas dropped after each test, how notifications arrive (default: a connection of the pool). */
export interface ClusterBackend {
  readonly pool: SqlPool;
  readonly schemas: string[];
  readonly listen?: NotificationListener;
  /** Where the keepers' statements run (default: a connection of the pool reserved for each keeper); a one-connection pool shares itself. */
  readonly keeperPool?: SqlPool;
}

let backend: ClusterBackend;

const hosts: ClusterService[] = [];

/**
 * A fresh schema on `on`, one manual clock and one set of fake Sessions; `join` adds a Host
 * (closed by whoever empties `into`), its keeper on `timers` when given.
 */
export function clusterOn(on: ClusterBackend, into: ClusterService[], timers?: KeeperTimers) {
  const schema = randomSchema();
  on.schemas.push(schema);
  const clock = createManualClock(T0);
  const sessions = createFakeSessions();
  const join = async (hostId: string, extra: Pick<ClusterServiceOptions, 'metrics'> = {}): Promise<ClusterService> => {
    const host = await createClusterService({
      ...extra,
      pool: on.pool,
      schema,
      hostId,
      sessions,
      clock,
      logger: quiet,
      autoStart: false,
      ...(timers === undefined ? {} : { timers }),
      ...(on.keeperPool === undefined ? {} : { keeperPool: on.keeperPool }),
      routing: { timeoutMs: 5_000, pollMs: 25, ...(on.listen === undefined ? {} : { listen: on.listen }) },
    });
    into.push(host);
    return host;
  };
  return { schema, clock, sessions, join };
}

/** Hosts A and B joined and stepped until their shares settled. */
export async function settledPair(c: ReturnType<typeof clusterOn>): Promise<[ClusterService, ClusterService]> {
  const a = await c.join('host-a');
  const b = await c.join('host-b');
  for (let round = 0; round < 3; round++) {
    await a.step();
    await b.step();
  }
  return [a, b];
}

/** A Session id in a shard `owner` holds. */
function sessionHeldBy(owner: ClusterService): string {
  for (let i = 0; ; i++) if (owner.held().has(shardOf(`user-${i}`))) return `user-${i}`;
}

const create = { title: 'Stand-up', prompt: 'join the stand-up call', after_seconds: 60 };

export function describeCluster(name: string, backendOf: () => ClusterBackend): void {
  describe(`createClusterService on ${name}`, () => {
    beforeEach(() => {
      backend = backendOf();
    });
    afterEach(async () => {
      for (const h of hosts.splice(0)) await h.close();
    });

    test('two Hosts split the shards and answer calls for any Session as its owner would', async () => {
      const c = clusterOn(backend, hosts);
      const [a, b] = await settledPair(c);
      expect([a.held().size, b.held().size]).toEqual([128, 128]);
      const atB = sessionHeldBy(b);
      const created = await a.callTool(atB, 'schedule_create', create);
      if ('code' in created) throw new Error(created.message);
      expect(await b.callTool(atB, 'schedule_list', {})).toMatchObject([{ id: created.id, title: 'Stand-up' }]);
      expect(await a.remote.list({ sessionId: atB })).toMatchObject([{ id: created.id }]);
      const refused = await a.callTool(atB, 'schedule_create', { ...create, prompt: ' ' });
      expect(refused).toMatchObject({ code: 'invalid_prompt' });
      const stored = await run(backend.pool, `select id, shard from ${c.schema}.tasks`);
      expect(stored.rows).toEqual([{ id: created.id, shard: shardOf(atB) }]);
      await c.clock.advance(60_000);
      await b.whenIdle();
      expect(c.sessions.messages(atB).map((m) => m.text)).toEqual([expect.stringContaining('join the stand-up call')]);
    });

    test("a Session's reads at a Host that serves none of its shards are answered from the schema, as its owner answers them", async () => {
      const c = clusterOn(backend, hosts);
      const [a, b] = await settledPair(c);
      const atB = sessionHeldBy(b);
      const first = await a.callTool(atB, 'schedule_create', { title: 'Stretch', prompt: 'Stand up.', every_seconds: 60 });
      const second = await a.callTool(atB, 'schedule_create', { ...create, title: 'Later', after_seconds: 3600 });
      if ('code' in first || 'code' in second) throw new Error('a create was refused');
      await c.clock.advance(60_000);
      await b.whenIdle();
      // A third Host that joins without stepping holds no shard: every call it takes is another Host's.
      const statements: string[] = [];
      // Every client of the pool as it is (its notifications included), its statements recorded.
      const spied: SqlPool = {
        connect: async () => {
          const client = await backend.pool.connect();
          return new Proxy(client, {
            get(target, key) {
              if (key === 'query') {
                return (text: Parameters<typeof target.query>[0], values?: readonly unknown[]) => {
                  statements.push(statementText(text));
                  return target.query(text, values);
                };
              }
              const value: unknown = Reflect.get(target, key, target);
              return typeof value === 'function' ? value.bind(target) : value;
            },
          });
        },
        end: async () => undefined,
      };
      const join = (hostId: string, readAtOwner: boolean) =>
        createClusterService({
          pool: spied,
          schema: c.schema,
          hostId,
          sessions: c.sessions,
          clock: c.clock,
          logger: quiet,
          autoStart: false,
          ...(backend.keeperPool === undefined ? {} : { keeperPool: backend.keeperPool }),
          routing: { timeoutMs: 5_000, pollMs: 25, readAtOwner, ...(backend.listen === undefined ? {} : { listen: backend.listen }) },
        }).then((host) => {
          hosts.push(host);
          return host;
        });
      const reads = (host: ClusterService) =>
        Promise.all([
          host.callTool(atB, 'schedule_list', {}),
          host.remote.list({ sessionId: atB }),
          host.remote.get({ sessionId: atB, id: first.id }),
          host.remote.history({ sessionId: atB, id: first.id, limit: 10 }),
          host.remote.get({ sessionId: atB, id: 'sch_999' }),
          host.callTool(atB, 'schedule_list', { extra: 1 }),
        ]);
      const atOwner = await reads(b);
      expect(atOwner[3]).toMatchObject({ records: [expect.objectContaining({ scheduledAt: '2030-01-01T08:01:00.000Z' })] });
      const c1 = await join('host-c', false);
      statements.length = 0;
      expect(await reads(c1)).toEqual(atOwner);
      expect(statements.filter((text) => text.includes('routed_calls'))).toEqual([]);
      // Routed to the owner instead, they answer the same.
      const d = await join('host-d', true);
      statements.length = 0;
      expect(await reads(d)).toEqual(atOwner);
      expect(statements.some((text) => text.includes('routed_calls'))).toBe(true);
    });

    test('a Host that leaves hands its shards over; the other restores their tasks and answers alone', async () => {
      const c = clusterOn(backend, hosts);
      const [a, b] = await settledPair(c);
      const atB = sessionHeldBy(b);
      const created = await a.callTool(atB, 'schedule_create', { ...create, after_seconds: 3600 });
      if ('code' in created) throw new Error(created.message);
      const epochBefore = b.held().get(shardOf(atB)) ?? 0;
      await b.close();
      hosts.splice(hosts.indexOf(b), 1);
      await a.step();
      expect(a.held().size).toBe(256);
      expect(a.held().get(shardOf(atB))).toBeGreaterThan(epochBefore);
      expect(await a.callTool(atB, 'schedule_list', {})).toMatchObject([{ id: created.id }]);
      await c.clock.advance(3_600_000);
      await a.whenIdle();
      expect(c.sessions.messages(atB)).toHaveLength(1);
    });

    test('a change made at one Host reaches the subscribers of every Host, once each', async () => {
      const c = clusterOn(backend, hosts);
      const [a, b] = await settledPair(c);
      const seen: string[] = [];
      a.subscribe((change) => seen.push(`A ${change.sessionId} ${change.ids.join(',')}`));
      b.subscribe((change) => seen.push(`B ${change.sessionId} ${change.ids.join(',')}`));
      const atB = sessionHeldBy(b);
      const created = await a.callTool(atB, 'schedule_create', create);
      if ('code' in created) throw new Error(created.message);
      for (let turn = 0; seen.length < 2 && turn < 200; turn++) await new Promise((resolve) => setTimeout(resolve, 5));
      // Time for a second notification of the same change, were one sent.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen.sort()).toEqual([`A ${atB} ${created.id}`, `B ${atB} ${created.id}`]);
    });

    test('a Host whose lease ran out by its own clock appends no reminder there; renewed, it delivers it once', async () => {
      // The keeper's clock, moved by hand; its timers never fire, so only step() renews.
      let keeperNow = 0;
      const frozen: KeeperTimers = { now: () => keeperNow, setTimeout: () => 0, clearTimeout: () => undefined };
      const c = clusterOn(backend, hosts, frozen);
      const a = await c.join('host-a');
      await a.step();
      expect(a.held().size).toBe(256);
      const session = 'user-paused';
      const created = await a.callTool(session, 'schedule_create', create);
      if ('code' in created) throw new Error(created.message);
      // As when the process was stopped past its lease: the deadline passed, and no step ran since.
      keeperNow += 15_000;
      await c.clock.advance(60_000);
      await a.whenIdle();
      expect(c.sessions.messages(session)).toEqual([]);
      const listed = await a.remote.list({ sessionId: session });
      if ('code' in listed) throw new Error(listed.message);
      expect(listed[0]?.failure?.message).toContain(`lease on shard ${shardOf(session)} may have run out`);
      // The next step renews the lease (nobody took it); the shard's service opens again and delivers.
      await a.step();
      for (let turn = 0; c.sessions.messages(session).length === 0 && turn < 200; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        await c.clock.advance(1_000);
        await a.whenIdle();
      }
      expect(c.sessions.messages(session).map((m) => m.text)).toEqual([expect.stringContaining('join the stand-up call')]);
    });

    test("health and the shards-held metric: no shard before the first step, all live after it, none live past the keeper's deadline", async () => {
      let keeperNow = 0;
      const frozen: KeeperTimers = { now: () => keeperNow, setTimeout: () => 0, clearTimeout: () => undefined };
      const c = clusterOn(backend, hosts, frozen);
      const reported: number[] = [];
      const a = await c.join('host-a', { metrics: { shardsHeld: (count) => reported.push(count) } });
      expect(a.health()).toEqual({ open: true, shards: { held: 0, live: 0 } });
      await a.step();
      expect(a.health()).toEqual({ open: true, shards: { held: 256, live: 256 } });
      expect(reported).toHaveLength(256);
      expect(reported.at(-1)).toBe(256);
      keeperNow += 15_000; // as after a pause past the lease, before the next step
      expect(a.health()).toEqual({ open: true, shards: { held: 256, live: 0 } });
      await a.close();
      expect(a.health()).toEqual({ open: false, shards: { held: 0, live: 0 } });
      expect(reported.at(-1)).toBe(0);
    });

    test('a Host whose lease was taken commits nothing there: the call answers persistence_uncertain', async () => {
      const c = clusterOn(backend, hosts);
      const a = await c.join('host-a');
      await a.step();
      expect(a.held().size).toBe(256);
      const session = 'user-fenced';
      const shard = shardOf(session);
      // Another Host takes the shard over behind host A's back (as after A was paused past its lease).
      await run(
        backend.pool,
        `update ${c.schema}.shard_leases set owner = 'host-z', epoch = epoch + 1, expires_at = now() + interval '1 hour' where shard = $1`,
        [shard],
      );
      expect(await a.callTool(session, 'schedule_create', create)).toMatchObject({ code: 'persistence_uncertain' });
      expect((await run(backend.pool, `select count(*)::int as n from ${c.schema}.tasks`)).rows).toEqual([{ n: 0 }]);
      // The keeper's next step notices the loss and stops the shard's work here.
      await a.step();
      expect(a.held().has(shard)).toBe(false);
    });
  });
}
