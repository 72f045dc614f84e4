// A shard's hand-over between two running Hosts: Host A serves every shard and its tasks; Host B
// joins, and each shard A gives it passes straight from A's lease to B's — no moment without an
// owner, one move each, at the next epoch — while A serves it until B has read it. B's readiness
// is held back for a while: meanwhile A still answers calls for a Session of a shard offered to B
// and delivers its reminder there, and once B is ready and the lease moves, B sees that the shard
// changed since it read it, reads it again, and serves it from that (the reminder A delivered is
// not delivered again). Every other shard B took is served from what it read while A served it:
// its rows were read once.

import type { NotificationListener } from '../../src/adapters/postgres/callRouter.ts';
import { type NamedStatement, type SqlClient, type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';
import { type ClusterService, createClusterService } from '../../src/cluster/clusterService.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { randomSchema, run } from '../storage/postgresHarness.ts';

/** Where the Hosts meet (see clusterSuite.ts): the pool, the schemas dropped after each test, how notifications arrive. */
export interface HandOverBackend {
  readonly pool: SqlPool;
  readonly schemas: string[];
  readonly listen: NotificationListener;
  /** Where the keepers' statements run; a one-connection pool shares itself. */
  readonly keeperPool?: (pool: SqlPool) => SqlPool;
}

const quiet = { warn() {}, error() {} };
const LEASE_MS = 3_000;

/**
 * `pool` with statements held back: while the gate is shut, a statement `held` picks gives its
 * connection back to the pool and waits for the gate before it runs on a connection taken again,
 * so the rest of the Host (and a one-connection pool) goes on meanwhile. Every statement is recorded.
 */
function gatedPool(pool: SqlPool, held: (text: string) => boolean) {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let shut = true;
  let firstHeld!: () => void;
  const someHeld = new Promise<void>((resolve) => {
    firstHeld = resolve;
  });
  const statements: { text: string; values: readonly unknown[] }[] = [];
  const gated: SqlPool = {
    connect: async () => {
      let inner = await pool.connect();
      const client: SqlClient = {
        query: async (statement: string | NamedStatement, values?: readonly unknown[]) => {
          const text = statementText(statement);
          statements.push({ text, values: (typeof statement === 'string' ? values : statement.values) ?? [] });
          if (shut && held(text)) {
            inner.release();
            firstHeld();
            await opened;
            inner = await pool.connect();
          }
          return inner.query(statement, values);
        },
        release: (error?: Error) => inner.release(error),
      };
      return client;
    },
    end: async () => undefined,
  };
  return {
    pool: gated,
    statements,
    someHeld,
    open: () => {
      shut = false;
      open();
    },
  };
}

/** Waits, on real time, until `check` passes (it throws until then), for at most `ms`. */
async function until(check: () => Promise<boolean> | boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const hosts: ClusterService[] = [];

export function describeHandOver(name: string, backendOf: () => HandOverBackend): void {
  describe(`a shard's hand-over on ${name}`, () => {
    afterEach(async () => {
      for (const host of hosts.splice(0)) await host.close();
    });

    test('the holder serves a shard until the taker has read it; the lease moves straight to the taker, which serves what it read', async () => {
      const backend = backendOf();
      const schema = randomSchema();
      backend.schemas.push(schema);
      const clock = createManualClock('2030-01-01T08:00:00.000Z');
      const sessions = createFakeSessions();
      const join = async (hostId: string, pool: SqlPool, keeperPool: SqlPool | undefined) => {
        const host = await createClusterService({
          pool,
          ...(keeperPool === undefined ? {} : { keeperPool }),
          schema,
          hostId,
          sessions,
          clock,
          leaseMs: LEASE_MS,
          logger: quiet,
          routing: { timeoutMs: 30_000, pollMs: 25, listen: backend.listen },
        });
        hosts.push(host);
        return host;
      };
      const a = await join('host-a', backend.pool, backend.keeperPool?.(backend.pool));
      expect(a.held().size).toBe(256);
      // A task in every shard, due in an hour: one Session of each.
      const ids = new Map<string, string>();
      const covered = new Set<number>();
      for (let i = 0; covered.size < 256; i++) {
        if (covered.has(shardOf(`user-${i}`))) continue;
        covered.add(shardOf(`user-${i}`));
        const created = await a.callTool(`user-${i}`, 'schedule_create', {
          title: `Task ${i}`,
          prompt: `hourly ${i}`,
          after_seconds: 3600,
        });
        if ('code' in created) throw new Error(created.message);
        ids.set(`user-${i}`, created.id);
      }
      // Every change of a shard's owner, as the database saw it.
      await run(
        backend.pool,
        `create table "${schema}".lease_moves (n bigserial, shard smallint, was text, now text, was_epoch bigint, now_epoch bigint);
         create function "${schema}".log_move() returns trigger language plpgsql as $$
         begin
           if new.owner is distinct from old.owner then
             insert into "${schema}".lease_moves (shard, was, now, was_epoch, now_epoch) values (new.shard, old.owner, new.owner, old.epoch, new.epoch);
           end if;
           return new;
         end $$;
         create trigger log_move after update on "${schema}".shard_leases for each row execute function "${schema}".log_move();`,
      );

      // B says it is ready only once the gate opens; it reads the shards offered to it meanwhile.
      const gate = gatedPool(backend.pool, (text) => text.includes('set offer_ready = true'));
      const b = await join('host-b', gate.pool, backend.keeperPool?.(gate.pool));
      await gate.someHeld;
      const offered = (
        await run(backend.pool, `select shard from "${schema}".shard_leases where offered_to = 'host-b' and owner = 'host-a'`)
      ).rows.map((r) => Number(r.shard));
      const sessionId = [...ids.keys()].find((id) => offered.includes(shardOf(id)));
      if (sessionId === undefined) throw new Error('no Session with a task in a shard offered to host-b');
      const shard = shardOf(sessionId);

      // A still serves the shard B has read: a call is answered there, and its reminder delivered there.
      const created = await b.callTool(sessionId, 'schedule_create', { title: 'Soon', prompt: 'stretch now', after_seconds: 30 });
      if ('code' in created) throw new Error(created.message);
      const row = await run(backend.pool, `select committed_by from "${schema}".tasks where id = $1`, [created.id]);
      expect(row.rows).toEqual([{ committed_by: 'host-a' }]);
      await clock.advance(30_000);
      await a.whenIdle();
      expect(sessions.messages(sessionId).map((m) => m.text)).toEqual([expect.stringContaining('stretch now')]);
      expect(b.held().has(shard)).toBe(false);

      gate.open();
      await until(() => b.held().size === 128 && a.held().size === 128, 'the Hosts hold 128 shards each');
      await b.whenIdle();

      // Each shard B holds moved once, from A straight to B, at the next epoch.
      const moves = (
        await run(
          backend.pool,
          `select shard, was, now, was_epoch::int as was_epoch, now_epoch::int as now_epoch from "${schema}".lease_moves order by n`,
        )
      ).rows;
      const held = [...b.held().keys()].sort((x, y) => x - y);
      expect(moves.map((m) => Number(m.shard)).sort((x, y) => x - y)).toEqual(held);
      for (const move of moves) expect(move).toMatchObject({ was: 'host-a', now: 'host-b', now_epoch: Number(move.was_epoch) + 1 });

      // B serves the shard that changed after it read it from what is stored now: both tasks, the
      // reminder A delivered not again.
      expect(b.held().get(shard)).toBeDefined();
      const listed = await b.callTool(sessionId, 'schedule_list', {});
      expect(listed).toEqual([expect.objectContaining({ id: ids.get(sessionId), title: expect.any(String) })]);
      expect(await b.remote.history({ sessionId, id: created.id, limit: 10 })).toMatchObject({ records: [{ prompt: 'stretch now' }] });
      expect(sessions.messages(sessionId)).toHaveLength(1);

      // Rows of a shard read by B: once for each shard it was given (what it read while A served
      // it), twice for the one that changed after.
      const reads = new Map<number, number>();
      for (const { text, values } of gate.statements) {
        // An open's read: the active rows due before the horizon (not a Session's rows, nor the next window's).
        if (!text.startsWith('select id, session_id, shard, status') || !text.includes('next_target <') || text.includes('next_target >='))
          continue;
        const scope = values.find((v): v is number[] => Array.isArray(v) && v.length === 1 && typeof v[0] === 'number');
        if (scope !== undefined) reads.set(scope[0] as number, (reads.get(scope[0] as number) ?? 0) + 1);
      }
      for (const s of held) expect([s, reads.get(s)]).toEqual([s, s === shard ? 2 : 1]);

      // B delivers in the shard it took.
      const later = await a.callTool(sessionId, 'schedule_create', { title: 'Later', prompt: 'drink water', after_seconds: 60 });
      if ('code' in later) throw new Error(later.message);
      await clock.advance(60_000);
      await b.whenIdle();
      expect(sessions.messages(sessionId).map((m) => m.text)).toEqual([
        expect.stringContaining('stretch now'),
        expect.stringContaining('drink water'),
      ]);
    }, 120_000);
  });
}
