// The cross-shard remote calls of a cluster Host on PGlite: two Hosts stepped until they hold 128
// shards each; the catalog (all of it, or a page) answered at either Host lists the tasks of both
// Hosts' shards, read from the database; a delivery failure shows on the entry at either Host
// (the owner's failure write stores it with the row); bad catalog options are refused as a single Host refuses
// them; the drift report covers every shard; a re-anchor is run by the Session's owner; and the
// topology names both Hosts and every shard's owner and epoch. A row whose columns disagree with
// its JSON is refused by name at either Host, as an open refuses it.

import type { ClusterService } from '../../src/cluster/clusterService.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import type { CatalogEntry } from '../../src/index.ts';
import { pgliteListener, run, usePglite } from '../storage/postgresHarness.ts';
import { clusterOn, settledPair } from './clusterSuite.ts';

const db = usePglite();
const hosts: ClusterService[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

async function pair() {
  const c = clusterOn({ pool: db.pool, schemas: db.schemas, listen: pgliteListener(() => db.db), keeperPool: db.pool }, hosts);
  const [a, b] = await settledPair(c);
  const { clock, sessions, schema } = c;
  const heldBy = (owner: ClusterService, from = 0) => {
    for (let i = from; ; i++) if (owner.held().has(shardOf(`user-${i}`))) return `user-${i}`;
  };
  return { a, b, clock, sessions, heldBy, schema };
}

const ids = (entries: readonly CatalogEntry[]) => entries.map((e) => e.record.id);

test('catalog, drift and re-anchor span every shard; a failure stored by its owner shows at either Host', async () => {
  const { a, b, clock, sessions, heldBy } = await pair();
  expect([a.held().size, b.held().size]).toEqual([128, 128]);
  const atA = heldBy(a);
  const atB = heldBy(b);
  const first = await a.callTool(atB, 'schedule_create', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
  const second = await b.callTool(atA, 'schedule_create', {
    title: 'Daily',
    prompt: 'daily',
    daily: { time: '09:00:00', time_zone: 'Europe/Berlin' },
  });
  if ('code' in first || 'code' in second) throw new Error(JSON.stringify([first, second]));

  for (const host of [a, b]) {
    expect(ids(await host.remote.catalog())).toEqual([first.id, second.id]);
    const page = await host.remote.catalog({ limit: 1, sort: 'title' });
    expect(page).toMatchObject({ total: 2, entries: [{ record: { id: second.id } }], nextCursor: expect.any(String) });
    expect(await host.remote.catalog({ limit: 0 })).toMatchObject({ code: 'invalid_rule' });
    expect(await host.remote.catalog({ filter: { nope: 1 } } as never)).toMatchObject({ code: 'invalid_selector' });
  }

  // The delivery into atB's Session fails at its owner (B), whose fenced failure write stores the
  // status with the row: B's catalog says so, and A's reads it from the row.
  sessions.failNext(atB, 'flush');
  await clock.advance(60_000);
  await b.whenIdle();
  const failing = async (host: ClusterService) => {
    const page = await host.remote.catalog({ filter: { status: 'failing' } });
    return 'code' in page ? page : ids(page.entries);
  };
  expect(await failing(b)).toEqual([first.id]);
  expect(await failing(a)).toEqual([first.id]);
  const entryAtA = (await a.remote.catalog()).find((entry) => entry.record.id === first.id);
  expect(entryAtA?.failure).toMatchObject({ attempts: 1, stage: 'flush' });

  const drift = await a.remote.drift();
  expect(drift).toMatchObject({ tzdata: expect.any(String), tasks: [] });
  expect(await b.remote.drift({ limit: 50 })).toMatchObject({ tzdata: drift.tzdata, tasks: [], total: 0 });
  expect(await b.remote.drift({ limit: 0 })).toMatchObject({ code: 'invalid_rule' });
  expect(await b.remote.drift({ any: 1 } as never)).toMatchObject({ code: 'invalid_selector' });
  expect(await a.remote.reanchor({ all: true })).toEqual({ reanchored: [] });
  expect(await a.remote.reanchor({ sessionId: atA, id: second.id })).toMatchObject({ id: second.id, kind: 'daily' });
  expect(await b.remote.reanchor({ sessionId: atA, id: 'sch_999' })).toMatchObject({ code: 'schedule_not_found' });
  expect(await b.remote.reanchor({ all: 'yes' } as never)).toMatchObject({ code: 'invalid_selector' });

  const topology = await b.topology();
  expect(topology.hosts.map((h) => h.hostId)).toEqual(['host-a', 'host-b']);
  expect(topology.shards).toHaveLength(256);
  expect(topology.shards.filter((s) => s.owner === 'host-a')).toHaveLength(128);
  expect(topology.shards[shardOf(atB)]).toMatchObject({ owner: 'host-b', epoch: b.held().get(shardOf(atB)) });
});

test('a row whose columns disagree with its JSON fails the catalog at either Host, naming the row', async () => {
  const { a, b, heldBy, schema } = await pair();
  const created = await a.callTool(heldBy(b), 'schedule_create', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
  if ('code' in created) throw new Error(JSON.stringify(created));
  expect(ids(await b.remote.catalog())).toEqual([created.id]);
  // The same statement reads the time-zone data version the schema records.
  await run(
    db.pool,
    `insert into "${schema}".domain_meta (key, value) values ('tzdata', '1999z') on conflict (key) do update set value = excluded.value`,
  );
  expect(await a.remote.drift()).toMatchObject({ writtenWith: '1999z', tasks: [] });
  await run(db.pool, `update "${schema}".tasks set status = 'inactive' where id = $1`, [created.id]);
  for (const host of [a, b]) {
    await expect(host.remote.catalog()).rejects.toMatchObject({
      code: 'corrupt_schedule_log',
      message: expect.stringContaining(`row "${created.id}": status is "active", but the status column is "inactive"`),
    });
  }
});
