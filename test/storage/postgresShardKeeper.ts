// The shard keeper, registered for PGlite (in `npm test`) and for the real server (`npm run
// test:postgres`): one keeper takes all 256 shards; a second joins and the two settle at 128 each,
// every moved shard released by its old owner (its hook run while the lease is still held) before
// the new owner takes it; a keeper that stops stepping loses its shards to the other at a higher
// epoch once its lease expires on the database's clock; an unreachable database is survived, the
// leases counted lost once their deadline passes on the keeper's clock; stop() releases
// everything and ends the membership; three keepers stepping together never share a shard; the
// loop runs on injected timers and keeps renewing while a release is slow; the shares add up to 256.
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import {
  hostShare,
  type KeeperTimers,
  type ShardKeeper,
  type ShardKeeperOptions,
  shardKeeper,
} from '../../src/adapters/postgres/shardKeeper.ts';
import { fairShare, type ShardLease, shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { row } from './fixtures.ts';
import { randomSchema, run } from './postgresHarness.ts';
import { sessionIn } from './postgresLeases.ts';

/** The pools of one backend: `pool` for keepers, `admin` for reading behind their back. */
export interface KeeperBackend {
  readonly pool: SqlPool;
  readonly admin: SqlPool;
  readonly schemas: string[];
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Fresh schemas named `<prefix>_…` on `db` (dropped after each test by its harness), and keepers
 * on them (stopped after each test): a lease of a minute on manual timers, each hook logged as
 * `<host> acquired|lost|released <shard>` (an acquisition as `acquiredAs` words it).
 */
export function keeperTestbed(db: { readonly pool: SqlPool; readonly schemas: string[] }, prefix: string) {
  let count = 0;
  const keepers: ShardKeeper[] = [];
  afterEach(async () => {
    for (const keeper of keepers.splice(0)) await keeper.stop().catch(() => undefined);
  });
  const schemaOf = (): string => {
    const schema = `${prefix}_${Date.now().toString(36)}_${++count}`;
    db.schemas.push(schema);
    return schema;
  };
  const keeperOn = (
    schema: string,
    hostId: string,
    log: string[],
    options: Partial<ShardKeeperOptions> & { acquiredAs?: (lease: ShardLease) => string } = {},
  ) => {
    const { acquiredAs = (lease: ShardLease) => `${lease.shard} from ${lease.from}`, ...rest } = options;
    const clock = manualTimers();
    const keeper = shardKeeper({
      pool: db.pool,
      schema,
      hostId,
      leaseMs: 60_000,
      timers: clock.timers,
      onAcquired: (lease) => log.push(`${hostId} acquired ${acquiredAs(lease)}`),
      onLost: (shard) => log.push(`${hostId} lost ${shard}`),
      release: async (shard) => {
        log.push(`${hostId} released ${shard}`);
      },
      ...rest,
    });
    keepers.push(keeper);
    return { keeper, clock };
  };
  return { schemaOf, keeperOn };
}

/** Timers that fire only when the test advances them, with the clock they share. */
export function manualTimers(): { timers: KeeperTimers; advance(ms: number): void; pending(): number[] } {
  let now = 0;
  let next = 0;
  const pending = new Map<number, { at: number; run: () => void }>();
  return {
    timers: {
      setTimeout: (run, ms) => {
        next++;
        pending.set(next, { at: now + ms, run });
        return next;
      },
      clearTimeout: (handle) => {
        pending.delete(handle as number);
      },
      now: () => now,
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...pending].filter(([, p]) => p.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (due === undefined) break;
        pending.delete(due[0]);
        now = due[1].at;
        due[1].run();
      }
      now = until;
    },
    pending: () => [...pending.values()].map((p) => p.at - now).sort((a, b) => a - b),
  };
}

/** Registers the shard keeper tests for one backend. */
export function describeShardKeeper(name: string, backend: () => KeeperBackend): void {
  const schemaOf = () => {
    const schema = randomSchema();
    backend().schemas.push(schema);
    return schema;
  };
  /** A keeper whose hooks write to `log` ("a acquired 3@1", "a lost 3", "a released 3"). */
  const keeperOn = (schema: string, hostId: string, log: string[], extra: Partial<ShardKeeperOptions> = {}): ShardKeeper =>
    shardKeeper({
      pool: backend().pool,
      schema,
      hostId,
      leaseMs: 60_000,
      onAcquired: (lease) => log.push(`${hostId} acquired ${lease.shard}@${lease.epoch}`),
      onLost: (shard) => log.push(`${hostId} lost ${shard}`),
      release: async (shard) => {
        log.push(`${hostId} released ${shard}`);
      },
      ...extra,
    });
  const owners = async (schema: string) =>
    (await run(backend().admin, `select shard, owner, epoch::int as epoch from "${schema}".shard_leases order by shard`)).rows as {
      shard: number;
      owner: string | null;
      epoch: number;
    }[];
  const members = async (schema: string) =>
    (await run(backend().admin, `select host_id from "${schema}".cluster_hosts order by host_id`)).rows.map((r) => r.host_id);
  /** A release hook of host a that notes the shard's owner in the lease table while it runs. */
  const releaseNoting =
    (schema: string, log: string[], ownerSeen: (string | null)[]) =>
    async (shard: number): Promise<void> => {
      await sleep(1);
      const stored = await run(backend().admin, `select owner from "${schema}".shard_leases where shard = $1`, [shard]);
      ownerSeen.push((stored.rows[0]?.owner as string | null | undefined) ?? null);
      log.push(`a released ${shard}`);
    };
  /** `keeper`'s held() agrees with the lease table. */
  const agrees = async (schema: string, ...keepers: ShardKeeper[]) => {
    const stored = await owners(schema);
    for (const keeper of keepers) {
      const mine = stored.filter((r) => r.owner === keeper.hostId).map((r) => [r.shard, r.epoch] as const);
      expect([...keeper.held()]).toEqual(mine);
    }
  };
  /** Steps a then b until neither changes anything. */
  const settle = async (...keepers: ShardKeeper[]) => {
    for (let round = 0; round < 10; round++) {
      let changed = false;
      for (const keeper of keepers) {
        const report = await keeper.step();
        expect(report.error).toBeUndefined();
        changed ||= report.acquired.length + report.released.length + report.lost.length > 0;
      }
      if (!changed) return round;
    }
    throw new Error('the keepers did not settle in 10 rounds');
  };

  describe(`shard keeper on ${name}`, () => {
    it('a keeper alone takes all 256 shards at epoch 1; held() is what a fenced storage commits under', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const a = keeperOn(schema, 'a', log);
      expect(await a.step()).toEqual({ liveHosts: 1, share: 256, acquired: range(0, 256), released: [], lost: [] });
      expect(log).toEqual(range(0, 256).map((s) => `a acquired ${s}@1`));
      expect(await a.step()).toEqual({ liveHosts: 1, share: 256, acquired: [], released: [], lost: [] });
      expect(a.held()).toEqual(new Map(range(0, 256).map((s) => [s, 1])));
      expect(a.leasesHeld()).toHaveLength(256);
      await agrees(schema, a);
      expect(await members(schema)).toEqual(['a']);

      const storage = postgresStorage({ pool: backend().pool, schema, fence: { hostId: 'a', epochs: () => a.held() } });
      await storage.open();
      await storage.commit({ puts: [row(1, 'every', sessionIn(3))], deletes: [] });
      await storage.close();
    });

    it('a second keeper joins: each moved shard is released by the first (its lease still held) before the second takes it; both settle at 128', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const ownerSeen: (string | null)[] = [];
      const a = keeperOn(schema, 'a', log, { release: releaseNoting(schema, log, ownerSeen) });
      const b = keeperOn(schema, 'b', log);
      await a.step();
      expect(await b.step()).toEqual({ liveHosts: 2, share: 128, acquired: [], released: [], lost: [] });
      expect(await a.step()).toEqual({ liveHosts: 2, share: 128, acquired: [], released: range(128, 256), lost: [] });
      expect(ownerSeen).toEqual(Array(128).fill('a'));
      expect(await b.step()).toMatchObject({ liveHosts: 2, share: 128, acquired: range(128, 256), lost: [] });
      expect(await settle(a, b)).toBe(0);
      expect([a.held().size, b.held().size]).toEqual([128, 128]);
      expect([...b.held().values()].every((epoch) => epoch === 2)).toBe(true);
      await agrees(schema, a, b);
      for (const shard of range(128, 256)) {
        const released = log.indexOf(`a released ${shard}`);
        expect(released).toBeGreaterThanOrEqual(0);
        expect(log.indexOf(`b acquired ${shard}@2`)).toBeGreaterThan(released);
      }
      expect(log.filter((line) => line.includes('lost'))).toEqual([]);
    });

    it('a keeper that stops stepping loses its shards to the other at a higher epoch once its lease expires on the database clock', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const a = keeperOn(schema, 'a', log, { leaseMs: 300 });
      const b = keeperOn(schema, 'b', log);
      expect((await a.step()).acquired).toHaveLength(256);
      await b.step();
      // a stops stepping; its lease and membership run out (300 ms by the database's clock).
      const leases = shardLeases({ pool: backend().pool, schema });
      while ((await leases.held('a')).length > 0) await sleep(50);
      const taken = await b.step();
      expect(taken).toMatchObject({ liveHosts: 1, share: 256, lost: [] });
      expect(b.held().size).toBe(256);
      expect([...b.held().values()].every((epoch) => epoch === 2)).toBe(true);
      expect(await members(schema)).toEqual(['a', 'b']);

      // When a steps again, it finds its leases gone, reports each lost, and rejoins empty-handed.
      const back = await a.step();
      expect(back).toMatchObject({ liveHosts: 2, share: 128, acquired: [] });
      expect(back.lost).toEqual(range(0, 256));
      expect(log.filter((line) => line.startsWith('a lost'))).toHaveLength(256);
      expect(a.held().size).toBe(0);
      await settle(b, a);
      expect([a.held().size, b.held().size]).toEqual([128, 128]);
      expect([...a.held().values()].every((epoch) => epoch === 3)).toBe(true);
      await agrees(schema, a, b);
    });

    it('a running keeper steps as soon as another Host’s lease runs out, not at its next tick, and takes its shards then', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const a = keeperOn(schema, 'a', log, { leaseMs: 400 });
      const clock = manualTimers();
      const b = keeperOn(schema, 'b', log, { leaseMs: 60_000, timers: clock.timers });
      expect((await a.step()).acquired).toHaveLength(256);
      const started = performance.now();
      expect(await b.start()).toMatchObject({ liveHosts: 2, share: 128, acquired: [] });
      // a's membership and leases run out within 400 ms of its step; b's tick is brought forward
      // from 20 s to then (plus a little slack). b holds nothing yet, so no deadline is pending.
      const [early, ...rest] = clock.pending();
      expect(early).toBeGreaterThan(0);
      expect(early).toBeLessThanOrEqual(400 + 25 + Math.ceil(performance.now() - started));
      expect(rest).toEqual([]);
      // a stops stepping. Once the database lets its leases go, b's early tick takes them all.
      const leases = shardLeases({ pool: backend().pool, schema });
      while ((await leases.held('a')).length > 0) await sleep(20);
      clock.advance(early as number);
      await vi.waitFor(() => expect(b.held().size).toBe(256), { timeout: 5000, interval: 5 });
      expect([...b.held().values()].every((epoch) => epoch === 2)).toBe(true);
      // Nothing else is about to lapse, so the loop is back to a step every third of the lease,
      // beside the deadline of the leases b now holds.
      await vi.waitFor(() => expect(clock.pending()).toEqual([20_000, 60_000]), { timeout: 5000, interval: 5 });
      await b.stop();
      expect(clock.pending()).toEqual([]);
    });

    it('an unreachable database is survived: the leases are lost once their deadline passes on the keeper’s clock, taken back when it answers again', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const errors: unknown[] = [];
      let reachable = true;
      const flaky: SqlPool = {
        connect: () =>
          reachable ? backend().pool.connect() : Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
        end: async () => undefined,
      };
      const clock = manualTimers();
      const a = keeperOn(schema, 'a', log, { pool: flaky, leaseMs: 15_000, timers: clock.timers, onError: (e) => errors.push(e) });
      expect((await a.step()).acquired).toHaveLength(256);
      reachable = false;
      clock.advance(14_999);
      const failed = await a.step();
      expect(failed).toMatchObject({ liveHosts: 0, share: 0, acquired: [], released: [], lost: [] });
      expect(failed.error).toMatchObject({ code: 'persistence_uncertain' });
      expect(String((failed.error as Error).message)).toContain('the database cannot be reached (connect ECONNREFUSED)');
      expect(a.held().size).toBe(256);
      clock.advance(1);
      const expired = await a.step();
      expect(expired.lost).toEqual(range(0, 256));
      expect(a.held().size).toBe(0);
      expect(errors).toHaveLength(2);
      expect(log.filter((line) => line.startsWith('a lost'))).toHaveLength(256);

      // Nobody took them (they have not expired on the database's clock): renewing takes them back at their epoch.
      reachable = true;
      const again = await a.step();
      expect(again).toMatchObject({ liveHosts: 1, acquired: range(0, 256), lost: [] });
      expect(a.held()).toEqual(new Map(range(0, 256).map((s) => [s, 1])));
    });

    it('holds() is true while a lease is held and live by the keeper’s clock, and false once its deadline passes, before any step', async () => {
      const schema = schemaOf();
      const clock = manualTimers();
      const a = keeperOn(schema, 'a', [], { leaseMs: 15_000, timers: clock.timers });
      expect(a.holds(3)).toBe(false);
      await a.step();
      expect(a.holds(3)).toBe(true);
      clock.advance(14_999);
      expect(a.holds(3)).toBe(true);
      // As when the process was paused: the deadline has passed, and no step has run since.
      clock.advance(1);
      expect(a.holds(3)).toBe(false);
      expect(a.held().has(3)).toBe(true);
      // The next step renews it (nobody took it) and it is live again.
      await a.step();
      expect(a.holds(3)).toBe(true);
    });

    it('stop() awaits each release hook while the lease is held, frees every lease and ends the membership; the other then takes them over', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const ownerSeen: (string | null)[] = [];
      const a = keeperOn(schema, 'a', log, { release: releaseNoting(schema, log, ownerSeen) });
      const b = keeperOn(schema, 'b', log);
      await settle(a, b);
      const mine = [...a.held().keys()];
      expect(mine).toEqual(range(0, 128));
      await a.stop();
      expect(ownerSeen).toEqual(Array(128 + 128).fill('a'));
      expect(a.held().size).toBe(0);
      expect(
        log
          .filter((line) => line.startsWith('a released'))
          .slice(-128)
          .sort(),
      ).toEqual(mine.map((s) => `a released ${s}`).sort());
      expect((await owners(schema)).filter((r) => r.owner === 'a')).toEqual([]);
      expect(await members(schema)).toEqual(['b']);
      expect(await b.step()).toMatchObject({ liveHosts: 1, share: 256, acquired: range(0, 128), lost: [] });
      expect([...b.held().values()].every((epoch) => epoch === 2)).toBe(true);
      await b.stop();
      expect(await members(schema)).toEqual([]);
      expect((await owners(schema)).every((r) => r.owner === null)).toBe(true);
    });

    it('three keepers stepping together never hold the same shard, and settle at 86, 85 and 85', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const owner = new Map<number, string>();
      const problems: string[] = [];
      const keepers = ['a', 'b', 'c'].map((hostId) =>
        keeperOn(schema, hostId, log, {
          onAcquired: (lease) => {
            const before = owner.get(lease.shard);
            if (before !== undefined) problems.push(`${hostId} acquired ${lease.shard} while ${before} held it`);
            owner.set(lease.shard, hostId);
          },
          onLost: (shard) => problems.push(`${hostId} lost ${shard}`),
          release: async (shard) => {
            if (owner.get(shard) !== hostId) problems.push(`${hostId} released ${shard}, which it did not hold`);
            owner.delete(shard);
          },
        }),
      );
      for (let round = 0; round < 6; round++) {
        const reports = await Promise.all(keepers.map((k) => k.step()));
        expect(reports.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
        const held = keepers.flatMap((k) => [...k.held().keys()]);
        expect(new Set(held).size).toBe(held.length);
        await agrees(schema, ...keepers);
      }
      expect(await settle(...keepers)).toBe(0);
      expect(problems).toEqual([]);
      const sizes = keepers.map((k) => k.held().size);
      expect(sizes.reduce((sum, n) => sum + n, 0)).toBe(256);
      expect([...sizes].sort((x, y) => y - x)).toEqual([86, 85, 85]);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(fairShare(3));
    });

    it('start() steps every third of the lease on the given timers; while a release is slow the ticks renew, so nothing is lost; stop() ends the loop', async () => {
      const schema = schemaOf();
      const log: string[] = [];
      const clock = manualTimers();
      let unblock!: () => void;
      const blocked = new Promise<void>((resolve) => {
        unblock = resolve;
      });
      const a = keeperOn(schema, 'a', log, {
        leaseMs: 15_000,
        timers: clock.timers,
        release: async (shard) => {
          await blocked;
          log.push(`a released ${shard}`);
        },
      });
      const b = keeperOn(schema, 'b', log);
      expect((await a.start()).acquired).toHaveLength(256);
      // The next step in 5 s, and the deadline of the leases in 15 s.
      expect(clock.pending()).toEqual([5000, 15_000]);
      await b.step();
      // The expiry of a's leases as the database last confirmed it to a.
      const expiry = () => a.leasesHeld()[0]?.expiresAt;
      const renewed = (seen: string | undefined) => vi.waitFor(() => expect(expiry()).not.toBe(seen), { timeout: 5000, interval: 5 });
      const before = expiry();
      clock.advance(5000);
      // The tick's step is in flight, waiting for the release hooks; joining it waits too.
      const stepping = a.step();
      await renewed(before);
      // Four more ticks (20 s, past the 15 s lease): each renews, as the step is still in flight.
      for (let tick = 0; tick < 4; tick++) {
        const seen = expiry();
        clock.advance(5000);
        await renewed(seen);
      }
      const stored = await run(backend().admin, `select max(expires_at) > now() as live from "${schema}".shard_leases where owner = 'a'`);
      expect(stored.rows).toEqual([{ live: true }]);
      expect(log.filter((line) => line.includes('lost') || line.includes('released'))).toEqual([]);
      expect(a.held().size).toBe(256);
      unblock();
      expect(await stepping).toMatchObject({ released: range(128, 256), lost: [] });
      expect(a.held().size).toBe(128);
      await a.stop();
      expect(clock.pending()).toEqual([]);
      expect(await members(schema)).toEqual(['b']);
    });

    it('hostShare splits the 256 shards among the live Hosts as evenly as they go, the oldest taking the remainder', () => {
      expect([0, 1, 2].map((rank) => hostShare(rank, 3))).toEqual([86, 85, 85]);
      for (const live of [1, 2, 3, 5, 7, 100, 255, 256, 300]) {
        const shares = range(0, live).map((rank) => hostShare(rank, live));
        expect(shares.reduce((sum, n) => sum + n, 0)).toBe(256);
        expect(Math.max(...shares)).toBe(fairShare(live));
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
        expect(shares).toEqual([...shares].sort((x, y) => y - x));
      }
    });

    it('bad options are refused with internal_error', () => {
      const hooks = { onAcquired: () => undefined, onLost: () => undefined, release: async () => undefined };
      const pool = backend().pool;
      expect(() => shardKeeper({ pool, hostId: '', ...hooks })).toThrow(/host id must be a non-empty string/);
      expect(() => shardKeeper({ pool, hostId: 'a', leaseMs: 2, ...hooks })).toThrow(
        /leaseMs is a whole number of ms from 3 to 86400000, not 2/,
      );
      expect(() => shardKeeper({ pool, hostId: 'a', ...hooks, release: undefined as never })).toThrow(/needs its release hook/);
      const pace = { openCapacity: () => 1 };
      expect(() => shardKeeper({ pool, hostId: 'a', ...hooks, pace: { ...pace, graceMs: -1 } })).toThrow(
        /graceMs is a whole number of ms, not -1/,
      );
      expect(() => shardKeeper({ pool, hostId: 'a', ...hooks, pace: { ...pace, quietMs: 0.5 } })).toThrow(
        /quietMs is a whole number of ms, not 0.5/,
      );
    });
  });
}
