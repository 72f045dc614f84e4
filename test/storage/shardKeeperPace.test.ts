// The paced shard keeper (its running loop given a `pace`), on PGlite: a joining Host takes its
// share only as fast as it can open it, while the holder keeps only a few shards waiting for it
// (here four for each Host below its share) and serves the rest meanwhile; a Host that wanted more
// than it could open steps again when told an open finished; leases another Host let run out are
// taken by the established Hosts, beyond their share, not by a newcomer that can open nothing
// yet; a shard taken over is kept for the grace period while the Host hands on others; and of the
// shards it serves, a Host hands on only those whose next reminder is far enough off (the
// quietest first), or, when none has been for the grace, the quietest.
// The steps are run by the test (the loops' timers never fire), so each step's effect is exact.
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import type { KeeperPace, ShardKeeperOptions } from '../../src/adapters/postgres/shardKeeper.ts';
import { shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { run, usePglite } from './postgresHarness.ts';
import { keeperTestbed } from './postgresShardKeeper.ts';

const db = usePglite();
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const testbed = keeperTestbed(db, 'ha_pace');
const { schemaOf } = testbed;

/** A keeper logging `<host> acquired <shard> from <origin>`; `room()` is what its owner can open now (when paced). */
function keeperOn(
  schema: string,
  hostId: string,
  log: string[],
  extra: Omit<Partial<ShardKeeperOptions>, 'pace'> & { room?: () => number; pace?: Omit<KeeperPace, 'openCapacity'> } = {},
) {
  const { room, pace: paceExtra, ...rest } = extra;
  const pace: KeeperPace | undefined = room === undefined ? undefined : { openCapacity: room, handoffBatch: 4, ...paceExtra };
  return testbed.keeperOn(schema, hostId, log, { ...(pace === undefined ? {} : { pace }), ...rest });
}

const freeShards = async (schema: string): Promise<number> =>
  Number((await run(db.pool, `select count(*)::int as n from "${schema}".shard_leases where owner is null`)).rows[0]?.n);

test('a joining Host takes only what it can open; the holder keeps a few waiting for it and serves the rest', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a } = keeperOn(schema, 'a', log, { room: () => 256 });
  let roomB = 4;
  const { keeper: b, clock: clockB } = keeperOn(schema, 'b', log, { room: () => roomB });
  // Alone, a takes every shard at once, whatever it can open.
  expect(await a.start()).toMatchObject({ liveHosts: 1, acquired: range(0, 256) });
  expect(await b.start()).toMatchObject({ liveHosts: 2, share: 128, acquired: [] });
  // a hands on four (the highest), and no more while they wait for an owner.
  expect(await a.step()).toMatchObject({ share: 128, released: [252, 253, 254, 255] });
  expect(await a.step()).toMatchObject({ released: [] });
  expect(a.held().size).toBe(252);
  // b can open three now: it takes three; a tops the shards waiting for b up to four again.
  roomB = 3;
  expect(await b.step()).toMatchObject({ acquired: [252, 253, 254] });
  expect(await freeShards(schema)).toBe(1);
  expect(await a.step()).toMatchObject({ released: [249, 250, 251] });
  expect(await freeShards(schema)).toBe(4);
  // b wanted more than it could open: told an open finished, its loop steps at once.
  b.nudge();
  expect(clockB.pending()[0]).toBeLessThanOrEqual(1);
  roomB = 4;
  expect(await b.step()).toMatchObject({ acquired: [249, 250, 251, 255] });
  expect(await a.step()).toMatchObject({ released: [245, 246, 247, 248] });
  expect(log.filter((line) => line.startsWith('b acquired')).every((line) => line.endsWith('from released'))).toBe(true);
  expect(log.filter((line) => line.includes('lost'))).toEqual([]);
});

test('of the shards it serves, the holder hands on first those whose next reminder is furthest off', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a } = keeperOn(schema, 'a', log, { room: () => 256 });
  const { keeper: b } = keeperOn(schema, 'b', log, { room: () => 4 });
  expect(await a.start()).toMatchObject({ acquired: range(0, 256) });
  // Every shard has a reminder due within the next 97 minutes (shard s at s × 37 mod 97 minutes),
  // but for 7, 9 and 11, which have none (9 has an ended task only).
  const dueIn = (shard: number): number => ((shard * 37) % 97) + 1;
  await run(
    db.pool,
    `insert into "${schema}".tasks (id, session_id, shard, status, next_target, row)
     select 'task-' || s, 'session-' || s, s, 'active', now() + ((s * 37) % 97 + 1) * interval '1 minute', '{}'
     from generate_series(0, 255) as s where s not in (7, 9, 11)`,
  );
  await run(
    db.pool,
    `insert into "${schema}".tasks (id, session_id, shard, status, next_target, row)
     values ('ended-9', 'session-9', 9, 'inactive', now(), '{}')`,
  );
  expect(await b.start()).toMatchObject({ liveHosts: 2, share: 128, acquired: [] });
  const [quietestBusy = -1] = range(0, 256)
    .filter((shard) => ![7, 9, 11].includes(shard))
    .sort((x, y) => dueIn(y) - dueIn(x) || y - x);
  const first = (await a.step()).released;
  expect(first).toEqual([7, 9, 11, quietestBusy].sort((x, y) => x - y));
  expect(dueIn(quietestBusy)).toBe(97);
  expect(await b.step()).toMatchObject({ acquired: first });
  // The next four are the quietest of the rest: no reminder of theirs is due sooner than one kept.
  const next = (await a.step()).released;
  expect(next).toHaveLength(4);
  const kept = range(0, 256).filter((shard) => a.held().has(shard));
  expect(Math.min(...next.map(dueIn))).toBeGreaterThanOrEqual(Math.max(...kept.map(dueIn)));
  expect(log.filter((line) => line.includes('lost'))).toEqual([]);
});

test('a busy shard stays with its holder until its next reminder is far enough off; when none has been for the grace, the quietest go', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a, clock: clockA } = keeperOn(schema, 'a', log, { room: () => 256, pace: { quietMs: 600_000, graceMs: 1_000 } });
  const { keeper: b } = keeperOn(schema, 'b', log, { room: () => 4 });
  expect(await a.start()).toMatchObject({ acquired: range(0, 256) });
  // Every shard has a reminder due within five minutes (shard s in s mod 5 + 1): none is ten minutes off.
  await run(
    db.pool,
    `insert into "${schema}".tasks (id, session_id, shard, status, next_target, row)
     select 'task-' || s, 'session-' || s, s, 'active', now() + (s % 5 + 1) * interval '1 minute', '{}'
     from generate_series(0, 255) as s`,
  );
  // A paused task due long ago does not keep its shard busy.
  await run(
    db.pool,
    `insert into "${schema}".tasks (id, session_id, shard, status, next_target, row)
     values ('paused-3', 'session-3', 3, 'active', now() - interval '1 day', '{"pausedAt": "2026-01-01T00:00:00Z"}')`,
  );
  expect(await b.start()).toMatchObject({ liveHosts: 2, share: 128, acquired: [] });
  expect((await a.step()).released).toEqual([]);
  clockA.advance(500);
  expect((await a.step()).released).toEqual([]);
  // Shard 3's reminder moves an hour off: it alone is quiet, and it goes at once.
  await run(db.pool, `update "${schema}".tasks set next_target = now() + interval '1 hour' where id = 'task-3'`);
  expect((await a.step()).released).toEqual([3]);
  expect(await b.step()).toMatchObject({ acquired: [3] });
  // None is quiet again: the wait starts over, and once it has lasted the grace the four quietest
  // go (due in five minutes; ties highest first).
  expect((await a.step()).released).toEqual([]);
  clockA.advance(1_000);
  expect((await a.step()).released).toEqual([239, 244, 249, 254]);
  expect(a.held().size).toBe(251);
});

test('leases run out go to the established Hosts, beyond their share, not to a newcomer that can open none yet; they are kept for the grace while others are handed on', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a } = keeperOn(schema, 'a', log, { room: () => 256 });
  const { keeper: b } = keeperOn(schema, 'b', log, { leaseMs: 300 });
  // Settled at 128 each by steps the test runs (unpaced: no loop yet), a on 0–127, b on 128–255.
  await a.step();
  await b.step();
  expect(await a.step()).toMatchObject({ released: range(128, 256) });
  expect(await b.step()).toMatchObject({ acquired: range(128, 256) });
  // a's loop runs (paced); it has been a member for an hour. c joins but can open nothing yet.
  await run(db.pool, `update "${schema}".cluster_hosts set started_at = now() - interval '1 hour' where host_id = 'a'`);
  expect(await a.start()).toMatchObject({ acquired: [], released: [] });
  let roomC = 0;
  const { keeper: c } = keeperOn(schema, 'c', log, { room: () => roomC });
  expect(await c.start()).toMatchObject({ liveHosts: 3, acquired: [] });
  // b stops renewing; once the database lets its leases go, a takes them all over.
  const leases = shardLeases({ pool: db.pool as SqlPool, schema });
  while ((await leases.held('b')).length > 0) await sleep(20);
  expect(await c.step()).toMatchObject({ acquired: [] });
  const takeover = await a.step();
  expect(takeover).toMatchObject({ liveHosts: 2, share: 128, acquired: range(128, 256) });
  expect(log.filter((line) => line.startsWith('a acquired 200 ')).at(-1)).toBe('a acquired 200 from expired');
  // a is above its share: it hands on its own shards, keeping those it just took over.
  const handed = await a.step();
  expect(handed.released).toEqual([124, 125, 126, 127]);
  roomC = 4;
  expect(await c.step()).toMatchObject({ acquired: [124, 125, 126, 127] });
  expect((await a.step()).released).toEqual([120, 121, 122, 123]);
  expect(range(128, 256).every((shard) => a.held().has(shard))).toBe(true);
});
