// A call routed while its shard moves, on PGlite: the shard's Host has left and no other has taken
// it yet, so the call waits in the database — it is not answered `owner_unavailable` — and the
// Host that takes the shard over runs it once it has opened the shard, within the routing deadline.

import { type ClusterService, createClusterService } from '../../src/cluster/clusterService.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { pgliteListener, randomSchema, run, usePglite } from '../storage/postgresHarness.ts';

const db = usePglite();
const hosts: ClusterService[] = [];

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
});

test('a call for a shard no Host holds waits for the Host that takes it and gets its answer', async () => {
  const schema = randomSchema();
  db.schemas.push(schema);
  const clock = createManualClock('2030-01-01T08:00:00.000Z');
  const sessions = createFakeSessions();
  const join = async (hostId: string) => {
    const host = await createClusterService({
      pool: db.pool,
      keeperPool: db.pool,
      schema,
      hostId,
      sessions,
      clock,
      logger: { warn() {}, error() {} },
      autoStart: false,
      // A deadline far beyond what opening the shards takes here, so the wait ends by the answer.
      routing: { timeoutMs: 60_000, pollMs: 25, listen: pgliteListener(() => db.db) },
    });
    hosts.push(host);
    return host;
  };
  const a = await join('host-a');
  const b = await join('host-b');
  for (let round = 0; round < 3; round++) {
    await a.step();
    await b.step();
  }
  let sessionId = 'user-0';
  for (let i = 1; !b.held().has(shardOf(sessionId)); i++) sessionId = `user-${i}`;
  // B leaves: its shards are free until A's keeper takes them.
  await b.close();
  hosts.splice(hosts.indexOf(b), 1);
  const call = a.callTool(sessionId, 'schedule_create', { title: 'Stand-up', prompt: 'join the stand-up call', after_seconds: 60 });
  for (let look = 0; ; look++) {
    const { rows } = await run(db.pool, `select status from "${schema}".routed_calls`);
    if (rows.some((r) => r.status === 'pending')) break;
    if (look > 500) throw new Error('the call was never routed');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // A takes the free shards (a step may take only some of them at a time).
  for (let step = 0; !a.held().has(shardOf(sessionId)); step++) {
    if (step > 20) throw new Error('host-a never took the shard');
    await a.step();
  }
  const created = await call;
  expect(created).toMatchObject({ id: expect.any(String) });
  expect(await a.callTool(sessionId, 'schedule_list', {})).toMatchObject([{ title: 'Stand-up' }]);
  const stored = await run(db.pool, `select committed_by from "${schema}".tasks`);
  expect(stored.rows).toEqual([{ committed_by: 'host-a' }]);
});
