// Shard leases and fenced commits, registered for PGlite (in `npm test`) and for the real server
// (`npm run test:postgres`): the lease table the migration adds, the fair split of the 256 shards,
// renewal, takeover of an expired lease at a higher epoch, release, concurrent acquires never
// sharing a shard, and commits fenced by the leases — refused and writing nothing when a lease of
// a shard they touch is lost, written when every lease is held.
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { LeaseLostError } from '../../src/adapters/postgres/fence.ts';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../src/adapters/postgres/migrations.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { fairShare, fenceEpochs, type ShardLease, shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { row } from './fixtures.ts';
import { randomSchema, run } from './postgresHarness.ts';

/** The pools of one backend: `pool` for leases and storages, `admin` for reading and writing behind their back. */
export interface LeaseBackend {
  readonly pool: SqlPool;
  readonly admin: SqlPool;
  readonly schemas: string[];
}

const LEASE_MS = 60_000;

/** A Session id whose shard is `shard`. */
export function sessionIn(shard: number): string {
  for (let i = 0; ; i++) {
    const id = `session-${i}`;
    if (shardOf(id) === shard) return id;
  }
}

/** How a promise settled: the code and message it rejected with, or `resolved`. */
export const failure = async (promise: Promise<unknown>): Promise<{ code: string; message: string; error: unknown }> => {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return { code: e.code ?? 'untyped', message: e.message ?? String(error), error };
  }
  return { code: 'resolved', message: '', error: undefined };
};

const shardsOf = (leases: readonly ShardLease[]): number[] => leases.map((l) => l.shard);
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** Registers the lease and fencing tests for one backend. */
export function describeShardLeases(name: string, backend: () => LeaseBackend): void {
  const schemaOf = () => {
    const schema = randomSchema();
    backend().schemas.push(schema);
    return schema;
  };
  const leasesOn = (schema: string) => shardLeases({ pool: backend().pool, schema });
  /** Makes the lease of `shards` expire (by the database's clock) without changing its owner or epoch. */
  const expire = (schema: string, shards: readonly number[]) =>
    run(backend().admin, `update "${schema}".shard_leases set expires_at = now() - interval '1 second' where shard = any($1::smallint[])`, [
      shards,
    ]);
  const owners = async (schema: string) =>
    (await run(backend().admin, `select shard, owner, epoch::int as epoch from "${schema}".shard_leases order by shard`)).rows as {
      shard: number;
      owner: string | null;
      epoch: number;
    }[];
  const storedRows = async (schema: string) =>
    (await run(backend().admin, `select id, version::int as version, row::text as row from "${schema}".tasks order by id`)).rows;

  describe(`shard leases on ${name}`, () => {
    it('the migration adds one free lease row per shard, at epoch 0; a schema from before it gains the table', async () => {
      const schema = schemaOf();
      await leasesOn(schema).held('a');
      const rows = await owners(schema);
      expect(rows).toEqual(range(0, 256).map((shard) => ({ shard, owner: null, epoch: 0 })));
      // An older schema (tasks and domain_meta only, as versions 1 and 2 left it) is brought up to date, its rows kept.
      const older = schemaOf();
      await run(backend().admin, `create schema "${older}"`);
      await run(backend().admin, `create table "${older}".schema_migrations (version integer primary key, name text not null)`);
      for (const m of MIGRATIONS.filter((m) => m.version <= 2)) {
        await run(backend().admin, m.sql.replaceAll('{schema}', `"${older}"`));
        await run(backend().admin, `insert into "${older}".schema_migrations (version, name) values ($1, $2)`, [m.version, m.name]);
      }
      await run(
        backend().admin,
        `insert into "${older}".tasks (id, session_id, shard, status, next_target, row) values ('sch_1', 's1', $1, 'active', now(), '{}')`,
        [shardOf('s1')],
      );
      const client = await backend().admin.connect();
      try {
        const later = MIGRATIONS.map((m) => m.version).filter((v) => v > 2);
        expect(await migrate(client, older)).toEqual({ from: 2, to: SCHEMA_VERSION, applied: later });
      } finally {
        client.release();
      }
      expect(await owners(older)).toEqual(rows);
      expect((await run(backend().admin, `select id from "${older}".tasks`)).rows).toEqual([{ id: 'sch_1' }]);
    });

    it('fairShare is ceil(256 / live Hosts) and refuses a count that is not a whole number ≥ 1', () => {
      expect([1, 2, 3, 7, 256, 1000].map(fairShare)).toEqual([256, 128, 86, 37, 1, 1]);
      for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => fairShare(bad)).toThrow(/whole number of at least 1/);
    });

    it('two Hosts acquiring their fair share split the 256 shards; renew keeps every lease at its epoch', async () => {
      const schema = schemaOf();
      const leases = leasesOn(schema);
      const a = await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: fairShare(2) });
      const b = await leases.acquire({ hostId: 'b', leaseMs: LEASE_MS, want: fairShare(2) });
      expect(shardsOf(a)).toEqual(range(0, 128));
      expect(shardsOf(b)).toEqual(range(128, 256));
      expect(new Set([...a, ...b].map((l) => l.epoch))).toEqual(new Set([1]));
      expect(await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 10 })).toEqual([]);
      // Each acquired lease says where it came from; held() answers the same leases without it.
      expect(a.every((l) => l.from === 'new')).toBe(true);
      expect(await leases.held('a')).toEqual(a.map(({ from: _from, ...lease }) => lease));

      const renewed = await leases.renew('a', 2 * LEASE_MS);
      expect(renewed.map(({ shard, epoch }) => ({ shard, epoch }))).toEqual(a.map(({ shard, epoch }) => ({ shard, epoch })));
      expect(renewed.every((l, i) => Date.parse(l.expiresAt) > Date.parse(a[i]?.expiresAt ?? ''))).toBe(true);
      expect(await leases.held('b')).toEqual(b.map(({ from: _from, ...lease }) => lease));
      expect(await leases.renew('nobody', LEASE_MS)).toEqual([]);
    });

    it('an expired lease is taken by another Host at a higher epoch and is lost to its old owner; one nobody took renews at its epoch', async () => {
      const schema = schemaOf();
      const leases = leasesOn(schema);
      expect(shardsOf(await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 3 }))).toEqual([0, 1, 2]);
      await expire(schema, [0, 2]);
      expect(shardsOf(await leases.held('a'))).toEqual([1]);
      const taken = await leases.acquire({ hostId: 'b', leaseMs: LEASE_MS, want: 1 });
      expect(taken.map(({ shard, epoch }) => ({ shard, epoch }))).toEqual([{ shard: 0, epoch: 2 }]);
      // Shard 2 expired but nobody took it: renewing keeps it, at the same epoch.
      const renewed = await leases.renew('a', LEASE_MS);
      expect(renewed.map(({ shard, epoch }) => ({ shard, epoch }))).toEqual([
        { shard: 1, epoch: 1 },
        { shard: 2, epoch: 1 },
      ]);
      // An expired lease its own owner takes back keeps its epoch; another owner's bumps it.
      await expire(schema, [1, 0]);
      const back = await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 2 });
      expect(back.map(({ shard, epoch }) => ({ shard, epoch }))).toEqual([
        { shard: 0, epoch: 3 },
        { shard: 1, epoch: 1 },
      ]);
      expect(await leases.held('b')).toEqual([]);
    });

    it('release frees the shards the Host owns (others are left alone); the next owner gets a new epoch', async () => {
      const schema = schemaOf();
      const leases = leasesOn(schema);
      await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 4 });
      await leases.acquire({ hostId: 'b', leaseMs: LEASE_MS, want: 1 });
      expect(await leases.release('a', [3, 1, 4, 1])).toEqual([1, 3]);
      expect(shardsOf(await leases.held('a'))).toEqual([0, 2]);
      expect(shardsOf(await leases.held('b'))).toEqual([4]);
      const next = await leases.acquire({ hostId: 'b', leaseMs: LEASE_MS, want: 1 });
      expect(next.map(({ shard, epoch }) => ({ shard, epoch }))).toEqual([{ shard: 1, epoch: 2 }]);
      // The same Host taking a shard back after releasing it starts a new term.
      const again = await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 1 });
      expect(again.map(({ shard, epoch }) => ({ shard, epoch }))).toEqual([{ shard: 3, epoch: 2 }]);
      expect(await leases.release('a', [])).toEqual([]);
    });

    it('Hosts acquiring concurrently never get the same shard, at the start and when every lease has expired', async () => {
      const schema = schemaOf();
      await leasesOn(schema).held('warm-up');
      const hosts = range(0, 8).map((i) => `host-${i}`);
      for (const round of [1, 2]) {
        const answers = await Promise.all(hosts.map((hostId) => leasesOn(schema).acquire({ hostId, leaseMs: LEASE_MS, want: 40 })));
        const taken = answers.flatMap((leases, i) => leases.map((l) => ({ shard: l.shard, owner: hosts[i], epoch: l.epoch })));
        expect(answers.every((leases) => leases.length <= 40)).toBe(true);
        expect(new Set(taken.map((t) => t.shard)).size).toBe(taken.length);
        expect(taken).toHaveLength(256);
        const stored = await owners(schema);
        expect(stored).toEqual([...taken].sort((x, y) => x.shard - y.shard));
        if (round === 1) await expire(schema, range(0, 256));
      }
    });

    it('bad requests are refused with internal_error before anything is sent', async () => {
      const leases = leasesOn(schemaOf());
      const refusals = await Promise.all([
        failure(leases.acquire({ hostId: '', leaseMs: LEASE_MS, want: 1 })),
        failure(leases.acquire({ hostId: 'a', leaseMs: 0, want: 1 })),
        failure(leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 257 })),
        failure(leases.renew('a\u0000', LEASE_MS)),
        failure(leases.release('a', [256])),
      ]);
      expect(refusals.map((r) => r.code)).toEqual(Array(5).fill('internal_error'));
      expect(refusals.map((r) => r.message)).toEqual([
        expect.stringContaining('host id must be a non-empty string'),
        expect.stringContaining('lasts a whole number of ms from 1 to 86400000, not 0'),
        expect.stringContaining('want of 0-256 shards, not 257'),
        expect.stringContaining('host id must be a non-empty string'),
        expect.stringContaining('whole numbers 0-255, not [256]'),
      ]);
      expect(() => postgresStorage({ pool: backend().pool, fence: { hostId: '', epochs: () => new Map() } })).toThrow(/host id/);
      expect(() => postgresStorage({ pool: backend().pool, fence: { hostId: 'a', epochs: () => new Map(), idleTimeoutMs: 0.5 } })).toThrow(
        "A fence's idleTimeoutMs is a whole number of ms from 1 to 86400000, not 0.5.",
      );
    });

    it('an unreachable database answers persistence_uncertain; a later call migrates and works', async () => {
      const schema = schemaOf();
      let reachable = false;
      const flaky: SqlPool = {
        connect: () =>
          reachable ? backend().pool.connect() : Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
        end: async () => undefined,
      };
      const leases = shardLeases({ pool: flaky, schema });
      const refused = await failure(leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 1 }));
      expect(refused).toMatchObject({
        code: 'persistence_uncertain',
        message:
          'The shard leases could not open their schema: the database cannot be reached (connect ECONNREFUSED); nothing was changed.',
      });
      reachable = true;
      expect(await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 1 })).toMatchObject([{ shard: 0, epoch: 1 }]);
    });
  });

  describe(`fenced commits on ${name}`, () => {
    const on = (shard: number, n: number): TaskRow => row(n, 'every', sessionIn(shard));
    const moved = (r: TaskRow): TaskRow => ({ ...r, status: 'inactive' });

    /** Host `a` holds shards 0 and 1, and its fenced storage has stored a row on each. */
    async function setUp() {
      const schema = schemaOf();
      const leases = leasesOn(schema);
      let epochs = fenceEpochs(await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 2 }));
      const storage = postgresStorage({ pool: backend().pool, schema, fence: { hostId: 'a', epochs: () => epochs } });
      await storage.open();
      await storage.commit({ puts: [on(0, 1), on(1, 2)], deletes: [], nextTaskNumber: 3 });
      const refresh = async () => {
        epochs = fenceEpochs(await leases.renew('a', LEASE_MS));
      };
      const setEpochs = (next: Map<number, number>) => {
        epochs = next;
      };
      return { schema, leases, storage, refresh, setEpochs };
    }

    it('after another Host takes an expired lease, the old owner’s commit on that shard is refused and writes nothing; on a shard it holds it succeeds', async () => {
      const { schema, leases, storage } = await setUp();
      await expire(schema, [0]);
      expect(await leases.acquire({ hostId: 'b', leaseMs: LEASE_MS, want: 1 })).toMatchObject([{ shard: 0, epoch: 2 }]);
      const before = await storedRows(schema);

      const put = await failure(storage.commit({ puts: [moved(on(0, 1))], deletes: [], nextTaskNumber: 9 }));
      expect(put.code).toBe('persistence_uncertain');
      expect(put.error).toBeInstanceOf(LeaseLostError);
      expect(put.error).toMatchObject({ shard: 0, epoch: 1 });
      expect(put.message).toBe(
        'Refusing to commit: the lease of host "a" on shard 0 at epoch 1 was lost: host "b" holds it now, at epoch 2; nothing of the batch was written.',
      );
      const del = await failure(storage.commit({ puts: [], deletes: ['sch_1'] }));
      expect(del.message).toContain('on shard 0 at epoch 1 was lost');
      expect(await storedRows(schema)).toEqual(before);

      await storage.commit({ puts: [moved(on(1, 2))], deletes: [] });
      await storage.commit({ puts: [on(1, 3)], deletes: ['sch_2'] });
      await storage.close();
      const reopened = postgresStorage({ pool: backend().pool, schema });
      // The refused batch's counter was never applied.
      expect(await reopened.open()).toEqual({ tasks: [on(0, 1), on(1, 3)], nextTaskNumber: 4 });
      await reopened.close();

      // The new owner, fenced at its epoch, writes the shard.
      const fencedB = postgresStorage({ pool: backend().pool, schema, fence: { hostId: 'b', epochs: () => new Map([[0, 2]]) } });
      await fencedB.open();
      await fencedB.commit({ puts: [moved(on(0, 1))], deletes: [] });
      await fencedB.close();
      // Each row names the Host and the lease epoch its latest commit was fenced at; unfenced commits name none.
      const writers = await run(
        backend().admin,
        `select id, committed_by, committed_epoch::int as epoch from "${schema}".tasks order by id`,
      );
      expect(writers.rows).toEqual([
        { id: 'sch_1', committed_by: 'b', epoch: 2 },
        { id: 'sch_3', committed_by: 'a', epoch: 1 },
      ]);
      const unfenced = postgresStorage({ pool: backend().pool, schema });
      await unfenced.open();
      await unfenced.commit({ puts: [on(1, 3)], deletes: [] });
      await unfenced.close();
      const after = await run(backend().admin, `select committed_by, committed_epoch from "${schema}".tasks where id = 'sch_3'`);
      expect(after.rows).toEqual([{ committed_by: null, committed_epoch: null }]);
    });

    it('a commit touching two shards, one of whose leases is lost, writes nothing at all', async () => {
      const { schema, leases, storage } = await setUp();
      await expire(schema, [1]);
      await leases.acquire({ hostId: 'b', leaseMs: LEASE_MS, want: 1 });
      const before = await storedRows(schema);
      const refused = await failure(storage.commit({ puts: [moved(on(0, 1)), on(0, 5)], deletes: ['sch_2'] }));
      expect(refused.error).toMatchObject({ code: 'persistence_uncertain', shard: 1, epoch: 1 });
      const mixed = await failure(storage.commit({ puts: [moved(on(0, 1)), moved(on(1, 2))], deletes: [] }));
      expect(mixed.message).toContain('lease of host "a" on shard 1 at epoch 1 was lost: host "b" holds it now, at epoch 2');
      expect(await storedRows(schema)).toEqual(before);
      await storage.close();
    });

    it('a lease that expired, released, or missing from the fence refuses the commit; renewed, the same epoch writes again', async () => {
      const { schema, leases, storage, refresh, setEpochs } = await setUp();
      const before = await storedRows(schema);
      await expire(schema, [1]);
      const expired = await failure(storage.commit({ puts: [moved(on(1, 2))], deletes: [] }));
      expect(expired.message).toContain("on shard 1 at epoch 1 was lost: it expired (by the database's clock) and was not renewed");
      await refresh();
      await storage.commit({ puts: [moved(on(1, 2))], deletes: [] });

      const unknown = await failure(storage.commit({ puts: [on(7, 4)], deletes: [] }));
      expect(unknown.message).toBe(
        'Refusing to commit: host "a" holds no lease on shard 7 (its fence names no epoch for it); nothing of the batch was written.',
      );
      await leases.release('a', [0]);
      const released = await failure(storage.commit({ puts: [], deletes: ['sch_1'] }));
      expect(released.message).toContain('on shard 0 at epoch 1 was lost: the shard is free (released) at epoch 1');
      await leases.acquire({ hostId: 'a', leaseMs: LEASE_MS, want: 1 });
      const stale = await failure(storage.commit({ puts: [], deletes: ['sch_1'] }));
      expect(stale.message).toContain('on shard 0 at epoch 1 was lost: the shard is at epoch 2 now');
      await refresh();
      await storage.commit({ puts: [], deletes: ['sch_1'] });
      // A delete of an id no row holds touches no shard; counter-only batches are not fenced.
      setEpochs(new Map());
      await storage.commit({ puts: [], deletes: ['sch_99'], nextTaskNumber: 10 });
      await storage.close();
      expect((await storedRows(schema)).map((r) => r.id)).toEqual(['sch_2']);
      expect(before.map((r) => r.id)).toEqual(['sch_1', 'sch_2']);
    });

    it('a fence whose epochs() throws refuses the commit with internal_error and writes nothing', async () => {
      const { schema, storage } = await setUp();
      await storage.close();
      const before = await storedRows(schema);
      const broken = postgresStorage({
        pool: backend().pool,
        schema,
        fence: {
          hostId: 'a',
          epochs: () => {
            throw new Error('boom');
          },
        },
      });
      await broken.open();
      expect(await failure(broken.commit({ puts: [moved(on(0, 1))], deletes: [] }))).toMatchObject({
        code: 'internal_error',
        message: "Refusing to commit: the fence's epochs() failed (boom); nothing was written.",
      });
      expect(await storedRows(schema)).toEqual(before);
      await broken.close();
    });
  });
}
