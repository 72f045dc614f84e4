// The hand-over of served shards by paced keepers on PGlite (their `pace.prepare` given): the holder
// offers its surplus to the Host below its share and keeps it meanwhile; the taker reads each
// shard offered (`prepare`, at the epoch it will hold it at) and says it is ready; the holder then
// runs its release hook and moves the lease straight to the taker, at the next epoch; the taker's
// next step takes it as `handed`. An offer not made ready within `offerMs` is withdrawn and the
// shard released; one whose taker left is withdrawn and the shard kept. The steps are run by the
// test (the loops' timers never fire), and the taker's reads by promises it resolves. A Host's
// arrival is notified, and brings the holders' next step forward.
import { ClusterHosts } from '../../src/adapters/postgres/clusterHosts.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { callsChannel } from '../../src/adapters/postgres/notificationListener.ts';
import type { KeeperPace } from '../../src/adapters/postgres/shardKeeper.ts';
import { shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { pgliteListener, run, usePglite } from './postgresHarness.ts';
import { keeperTestbed } from './postgresShardKeeper.ts';

const db = usePglite();
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

const testbed = keeperTestbed(db, 'ha_handover');
const { schemaOf } = testbed;

/** A paced keeper that hands over (its reads answered by `read`), logging its hooks. */
function keeperOn(
  schema: string,
  hostId: string,
  log: string[],
  room: number,
  read: (shard: number, epoch: number) => Promise<boolean>,
  pace: Partial<KeeperPace> = {},
) {
  return testbed.keeperOn(schema, hostId, log, {
    acquiredAs: (lease) => `${lease.shard} at ${lease.epoch} from ${lease.from}`,
    pace: {
      openCapacity: () => room,
      handoffBatch: 4,
      prepare: (shard, epoch) => {
        log.push(`${hostId} reads ${shard} for ${epoch}`);
        return read(shard, epoch);
      },
      unprepare: (shard) => log.push(`${hostId} drops ${shard}`),
      ...pace,
    },
  });
}

const offersOf = async (schema: string) =>
  (
    await run(
      db.pool,
      `select shard, owner, offered_to, offer_ready, epoch::int as epoch from "${schema}".shard_leases where offered_to is not null order by shard`,
    )
  ).rows;

/** Resolves once `check` holds of the lease rows (the taker's `ready` runs after its read, unawaited by the step). */
async function rowsUntil(schema: string, check: (rows: readonly Record<string, unknown>[]) => boolean): Promise<void> {
  for (let look = 0; !check(await offersOf(schema)); look++) {
    if (look > 500) throw new Error(`the offers never got there: ${JSON.stringify(await offersOf(schema))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('a served shard passes from holder to taker: offered, read by the taker, released by the holder and moved straight to the taker', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a, clock: clockA } = keeperOn(schema, 'a', log, 256, async () => true);
  const reads: (() => void)[] = [];
  const { keeper: b, clock: clockB } = keeperOn(
    schema,
    'b',
    log,
    16,
    () =>
      new Promise<boolean>((resolve) => {
        reads.push(() => resolve(true));
      }),
  );
  expect(await a.start()).toMatchObject({ acquired: range(0, 256) });
  expect(await b.start()).toMatchObject({ liveHosts: 2, share: 128, acquired: [] });
  // a offers four (the highest) to b and keeps serving them: nothing released.
  expect(await a.step()).toMatchObject({ released: [] });
  expect(a.held().size).toBe(256);
  expect(await offersOf(schema)).toEqual(
    range(252, 256).map((shard) => ({ shard, owner: 'a', offered_to: 'b', offer_ready: false, epoch: 1 })),
  );
  // No more while those four wait.
  expect(await a.step()).toMatchObject({ released: [] });
  expect((await offersOf(schema)).length).toBe(4);
  // b reads them, for the epoch it will hold them at; the shards on their way count as held, so it takes no free one.
  expect(await b.step()).toMatchObject({ acquired: [] });
  expect(log.filter((line) => line.startsWith('b reads'))).toEqual(range(252, 256).map((shard) => `b reads ${shard} for 2`));
  // Until b has read them, a keeps them.
  expect(await a.step()).toMatchObject({ released: [] });
  for (const done of reads.splice(0)) done();
  await rowsUntil(schema, (rows) => rows.every((row) => row.offer_ready === true));
  // Ready: a releases its work on them and moves the leases to b at the next epoch.
  expect(await a.step()).toMatchObject({ released: range(252, 256) });
  expect(log.filter((line) => line.startsWith('a released')).sort()).toEqual(range(252, 256).map((shard) => `a released ${shard}`));
  const moved = await run(
    db.pool,
    `select shard, owner, epoch::int as epoch from "${schema}".shard_leases where shard >= 252 order by shard`,
  );
  expect(moved.rows).toEqual(range(252, 256).map((shard) => ({ shard, owner: 'b', epoch: 2 })));
  // The same step offers the next four: those handed over no longer wait for b.
  expect((await offersOf(schema)).map((row) => [row.shard, row.offered_to])).toEqual(range(248, 252).map((shard) => [shard, 'b']));
  // b's next step takes them as handed; nothing was lost, nothing dropped.
  expect(await b.step()).toMatchObject({ acquired: range(252, 256) });
  expect(log.filter((line) => line.startsWith('b acquired'))).toEqual(
    range(252, 256).map((shard) => `b acquired ${shard} at 2 from handed`),
  );
  expect(log.filter((line) => line.includes('lost') || line.includes('drops'))).toEqual([]);
  // A notice of one of the four a offers now (its taker is ready) brings a's next step forward to
  // now; one of a shard it does not offer, or of offers to another Host, does not. Offers to b
  // bring b's forward.
  const next = clockA.pending()[0] ?? 0;
  a.notice('100');
  a.notice('offered:b');
  expect(clockA.pending()[0]).toBe(next);
  a.notice('250');
  expect(clockA.pending()[0]).toBeLessThanOrEqual(1);
  b.notice('offered:b');
  expect(clockB.pending()[0]).toBeLessThanOrEqual(1);
});

test('an offer the taker does not make ready within offerMs is withdrawn and the shard released; the taker drops what it read', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a, clock: clockA } = keeperOn(schema, 'a', log, 256, async () => true, { offerMs: 1_000 });
  // b cannot read what it is offered.
  const { keeper: b } = keeperOn(schema, 'b', log, 16, async () => false);
  await a.start();
  await b.start();
  await a.step();
  expect((await offersOf(schema)).map((row) => row.shard)).toEqual(range(252, 256));
  await b.step();
  await vi.waitFor(() => expect(log.filter((line) => line.startsWith('b drops'))).toHaveLength(4));
  expect(await a.step()).toMatchObject({ released: [] });
  clockA.advance(1_000);
  expect(await a.step()).toMatchObject({ released: range(252, 256) });
  expect(await offersOf(schema)).toEqual([]);
  const freed = await run(db.pool, `select count(*)::int as n from "${schema}".shard_leases where owner is null`);
  expect(freed.rows).toEqual([{ n: 4 }]);
  // Free, they are taken as released ones are (b takes no more than it can open).
  expect(await b.step()).toMatchObject({ acquired: range(252, 256) });
  expect(log.filter((line) => line.startsWith('b acquired'))).toEqual(
    range(252, 256).map((shard) => `b acquired ${shard} at 2 from released`),
  );
});

test('an offer whose taker left is withdrawn and the shard kept, served where it was', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a } = keeperOn(schema, 'a', log, 256, async () => true);
  const { keeper: b } = keeperOn(schema, 'b', log, 16, async () => true);
  await a.start();
  await b.start();
  await a.step();
  await b.step();
  await rowsUntil(schema, (rows) => rows.length === 4 && rows.every((row) => row.offer_ready === true));
  // b leaves before a hands the shards over.
  await b.stop();
  expect(await a.step()).toMatchObject({ liveHosts: 1, released: [] });
  expect(a.held().size).toBe(256);
  expect(await offersOf(schema)).toEqual([]);
  expect(log.filter((line) => line.startsWith('a released'))).toEqual([]);
});

test('the lease calls of a hand-over check who offers, who takes and at which epoch', async () => {
  const schema = schemaOf();
  const leases = shardLeases({ pool: db.pool as SqlPool, schema });
  await leases.acquire({ hostId: 'a', leaseMs: 60_000, want: 2 });
  await run(db.pool, `insert into "${schema}".cluster_hosts (host_id, expires_at) values ('b', now() + interval '1 minute')`);
  // Only the owner offers, and never to itself.
  await expect(leases.offer('a', [{ shard: 0, to: 'a' }])).rejects.toMatchObject({ code: 'internal_error' });
  expect(await leases.offer('c', [{ shard: 0, to: 'b' }])).toEqual([]);
  expect(
    await leases.offer('a', [
      { shard: 0, to: 'b' },
      { shard: 1, to: 'b' },
      { shard: 2, to: 'b' },
    ]),
  ).toEqual([0, 1]);
  // Ready only at the epoch the owner holds it at, and only by the Host it is offered to.
  expect(await leases.ready('b', 0, 2)).toBe(false);
  expect(await leases.ready('c', 0, 1)).toBe(false);
  expect(await leases.ready('b', 0, 1)).toBe(true);
  // Only ready offers move; the renewal tells the owner how each stands.
  expect((await leases.renew('a', 60_000)).map((lease) => [lease.shard, lease.offer])).toEqual([
    [0, { to: 'b', ready: true }],
    [1, { to: 'b', ready: false }],
  ]);
  expect(await leases.handOver('a', [0, 1], 60_000)).toEqual([0]);
  expect((await leases.held('b')).map((lease) => [lease.shard, lease.epoch])).toEqual([[0, 2]]);
  // A withdrawn offer cannot be made ready; a release clears an offer too.
  expect(await leases.withdraw('a', [1])).toEqual([1]);
  expect(await leases.ready('b', 1, 1)).toBe(false);
  expect(await leases.offer('a', [{ shard: 1, to: 'b' }])).toEqual([1]);
  expect(await leases.release('a', [1])).toEqual([1]);
  expect(await offersOf(schema)).toEqual([]);
});

test('a shard handed over is offered on at once when its Host is above its share, not kept for the grace', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const wide = { handoffBatch: 128 };
  const { keeper: b } = keeperOn(schema, 'b', log, 256, async () => true, wide);
  const { keeper: a } = keeperOn(schema, 'a', log, 256, async () => true, wide);
  expect(await b.start()).toMatchObject({ acquired: range(0, 256) });
  await a.start();
  // b offers a its surplus, a reads it all, b hands it over: a holds 128 shards handed to it.
  await b.step();
  await a.step();
  await rowsUntil(schema, (rows) => rows.length === 128 && rows.every((row) => row.offer_ready === true));
  expect((await b.step()).released).toHaveLength(128);
  expect((await a.step()).acquired).toHaveLength(128);
  // c joins: a is above its share by 43 and offers them on at once, though it got them just now.
  const { keeper: c } = keeperOn(schema, 'c', log, 256, async () => true, wide);
  expect(await c.start()).toMatchObject({ liveHosts: 3, acquired: [] });
  await a.step();
  const offered = await offersOf(schema);
  expect(offered.filter((row) => row.owner === 'a' && row.offered_to === 'c')).toHaveLength(43);
});

test('an offer its owner does not know of (its withdrawal failed, or made before a restart) is withdrawn at the next step', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const { keeper: a } = keeperOn(schema, 'a', log, 256, async () => true);
  await a.start();
  await run(db.pool, `insert into "${schema}".cluster_hosts (host_id, expires_at) values ('b', now() + interval '1 minute')`);
  const leases = shardLeases({ pool: db.pool as SqlPool, schema });
  expect(await leases.offer('a', [{ shard: 7, to: 'b' }])).toEqual([7]);
  expect(await leases.ready('b', 7, 1)).toBe(true);
  // a never made it: its next step withdraws it rather than hand the shard over. It offers b
  // shards of its own choosing instead, the highest: three, as the step counted the stray offer
  // among the four that may wait for b.
  await a.step();
  expect((await offersOf(schema)).map((row) => row.shard)).toEqual(range(253, 256));
  expect(a.held().has(7)).toBe(true);
  expect(log.filter((line) => line.startsWith('a released'))).toEqual([]);
});

test("a Host's arrival is notified on the calls channel, and a holder hearing it steps at once to offer it its share", async () => {
  const schema = schemaOf();
  const log: string[] = [];
  const heard: string[] = [];
  const stopListening = await pgliteListener(() => db.db)(
    [callsChannel(schema)],
    (_channel, payload) => heard.push(payload),
    () => {},
  );
  try {
    const { keeper: a, clock: clockA } = keeperOn(schema, 'a', log, 256, async () => true);
    await a.start();
    await vi.waitFor(() => expect(heard).toEqual(['joined:a']));
    // Renewing a membership notifies nothing.
    await a.step();
    const { keeper: b } = keeperOn(schema, 'b', log, 16, async () => true);
    expect(await b.start()).toMatchObject({ liveHosts: 2, acquired: [] });
    await vi.waitFor(() => expect(heard).toEqual(['joined:a', 'joined:b']));
    expect(await offersOf(schema)).toEqual([]);
    // Its own arrival does not bring a's next step forward; b's does, and that step offers b shards.
    const next = clockA.pending()[0] ?? 0;
    expect(next).toBeGreaterThan(1);
    a.notice('joined:a');
    expect(clockA.pending()[0]).toBe(next);
    a.notice('joined:b');
    expect(clockA.pending()[0]).toBeLessThanOrEqual(1);
    clockA.advance(1);
    await vi.waitFor(async () =>
      expect((await offersOf(schema)).map((row) => [row.shard, row.offered_to])).toEqual(range(252, 256).map((shard) => [shard, 'b'])),
    );
  } finally {
    await stopListening();
  }
});

test('Hosts above their share each offer a newcomer only their part of the batch, as they may step on the same view', async () => {
  const schema = schemaOf();
  const log: string[] = [];
  // a and b split the shards between them: b is a member before a's first step.
  const { keeper: a } = keeperOn(schema, 'a', log, 256, async () => true);
  const { keeper: b } = keeperOn(schema, 'b', log, 256, async () => true);
  await new ClusterHosts({ pool: db.pool, schema }).heartbeat('b', 60_000);
  expect((await a.start()).acquired).toHaveLength(128);
  expect((await b.start()).acquired).toHaveLength(128);
  const { keeper: c } = keeperOn(schema, 'c', log, 16, async () => false);
  expect(await c.start()).toMatchObject({ liveHosts: 3, acquired: [] });
  // Four may wait for c (handoffBatch 4); two Hosts are above their share: each offers two.
  await a.step();
  await b.step();
  const offered = await offersOf(schema);
  expect(offered.filter((row) => row.owner === 'a' && row.offered_to === 'c')).toHaveLength(2);
  expect(offered.filter((row) => row.owner === 'b' && row.offered_to === 'c')).toHaveLength(2);
  // Their offers waiting, neither offers more.
  await a.step();
  await b.step();
  expect(await offersOf(schema)).toHaveLength(4);
});
