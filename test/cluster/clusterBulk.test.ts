// The counts and the bulk actions of a cluster Host on PGlite: two Hosts stepped until they hold
// 128 shards each. The counts (and a catalog page's counts) answered at either Host cover the
// tasks of both Hosts' shards; a bulk pause by a filter across Sessions runs at each shard's owner
// and answers the sum; a bulk call whose filter names a Session runs at its owner; a repeat with
// the same callId answers the first answer.

import type { ClusterService } from '../../src/cluster/clusterService.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import type { ScheduleCounts } from '../../src/index.ts';
import { pgliteListener, usePglite } from '../storage/postgresHarness.ts';
import { clusterOn, settledPair } from './clusterSuite.ts';

const db = usePglite();
const hosts: ClusterService[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

test('counts and bulk pause span every shard, each part run by its owner', async () => {
  const c = clusterOn({ pool: db.pool, schemas: db.schemas, listen: pgliteListener(() => db.db), keeperPool: db.pool }, hosts);
  const [a, b] = await settledPair(c);
  const heldBy = (owner: ClusterService, from = 0) => {
    for (let i = from; ; i++) if (owner.held().has(shardOf(`user-${i}`))) return `user-${i}`;
  };
  const atA = heldBy(a);
  const atB = heldBy(b);
  const atA2 = heldBy(a, Number(atA.slice(5)) + 1);
  for (const sessionId of [atA, atA, atB, atB, atA2]) {
    const view = await a.callTool(sessionId, 'schedule_create', { title: 'Stretch', prompt: 'stretch', after_seconds: 600 });
    if ('code' in view) throw new Error(view.code);
  }
  const quiet = { scheduled: 5, overdue: 0, paused: 0, failing: 0, ended: 0, total: 5 };
  for (const host of [a, b]) {
    expect(await host.remote.counts()).toEqual({ all: quiet });
    expect(((await host.remote.counts({ sessionId: atB })) as ScheduleCounts).session).toMatchObject({ scheduled: 2, total: 2 });
    const page = await host.remote.catalog({ limit: 1, filter: { sessionId: atA } });
    expect('code' in page ? page : page.counts).toEqual({ all: quiet, session: { ...quiet, scheduled: 2, total: 2 } });
  }
  expect(await a.remote.counts({ sessionId: 1 } as never)).toMatchObject({ code: 'invalid_selector' });

  const request = { action: 'pause', filter: { text: 'stretch' } } as const;
  expect(await b.remote.bulk(request, { callId: 'all-1' })).toEqual({ action: 'pause', matched: 5, done: 5, skipped: [] });
  expect(await b.remote.bulk(request, { callId: 'all-1' })).toEqual({ action: 'pause', matched: 5, done: 5, skipped: [] });
  expect(((await a.remote.counts()) as ScheduleCounts).all).toMatchObject({ paused: 5, scheduled: 0 });

  expect(await a.remote.bulk({ action: 'resume', filter: { sessionId: atB } })).toEqual({
    action: 'resume',
    matched: 2,
    done: 2,
    skipped: [],
  });
  expect(
    await b.remote.bulk({
      action: 'resume',
      tasks: [
        { sessionId: atA, id: 'sch_1' },
        { sessionId: atB, id: 'sch_404' },
      ],
    }),
  ).toMatchObject({ matched: 2, done: 1, skipped: [{ code: 'schedule_not_found', count: 1, ids: ['sch_404'] }] });
  expect(((await b.remote.counts()) as ScheduleCounts).all).toMatchObject({ paused: 2, scheduled: 3 });
  expect(await a.remote.bulk({ action: 'nap', filter: {} } as never)).toMatchObject({ code: 'invalid_selector' });
});
