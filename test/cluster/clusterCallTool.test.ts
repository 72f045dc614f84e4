// A cluster Host's `callTool` takes the options of the single service's, on PGlite with two Hosts
// stepped until they hold 128 shards each: `format: 'openai-strict'` reads a strict model's nulls
// as absent whether the Session's shard is held here or at the other Host; an unknown format is
// refused before anything is sent; an aborted signal rejects with its reason and writes nothing.

import type { ClusterService } from '../../src/cluster/clusterService.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { pgliteListener, run, usePglite } from '../storage/postgresHarness.ts';
import { clusterOn, settledPair } from './clusterSuite.ts';

const db = usePglite();
const hosts: ClusterService[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

const heldBy = (owner: ClusterService): string => {
  for (let i = 0; ; i++) if (owner.held().has(shardOf(`user-${i}`))) return `user-${i}`;
};

/** A create as a model in OpenAI's strict mode sends it: every timing member, null when unused. */
const strictCreate = {
  title: 'Stand-up',
  prompt: 'join the stand-up call',
  after_seconds: 60,
  at: null,
  every_seconds: null,
  daily: null,
  weekly: null,
  cron: null,
};

test("callTool reads a strict model's arguments with format 'openai-strict', here and at the other Host", async () => {
  const c = clusterOn({ pool: db.pool, schemas: db.schemas, listen: pgliteListener(() => db.db), keeperPool: db.pool }, hosts);
  const [a, b] = await settledPair(c);
  const atA = heldBy(a);
  const atB = heldBy(b);
  // Without the format, the nulls are values, and a null timing is refused.
  expect(await a.callTool(atB, 'schedule_create', strictCreate)).toMatchObject({ code: expect.any(String) });
  for (const sessionId of [atA, atB]) {
    const created = await a.callTool(sessionId, 'schedule_create', strictCreate, {
      format: 'openai-strict',
      callId: `strict-${sessionId}`,
    });
    if ('code' in created) throw new Error(created.message);
    expect(created).toMatchObject({ title: 'Stand-up', kind: 'after' });
    // The callId travels with the call: a repeat answers the first answer.
    const again = await a.callTool(sessionId, 'schedule_create', strictCreate, { format: 'openai-strict', callId: `strict-${sessionId}` });
    expect(again).toEqual(created);
  }
  const stored = await run(db.pool, `select id from ${c.schema}.tasks`);
  expect(stored.rows).toHaveLength(2);
});

test('callTool refuses an unknown format and rejects an aborted call with its reason, writing nothing', async () => {
  const c = clusterOn({ pool: db.pool, schemas: db.schemas, listen: pgliteListener(() => db.db), keeperPool: db.pool }, hosts);
  const [a, b] = await settledPair(c);
  const args = { title: 'Stand-up', prompt: 'join', after_seconds: 60 };
  // @ts-expect-error: not a tool format
  await expect(a.callTool(heldBy(b), 'schedule_create', args, { format: 'gemini' })).rejects.toThrow(TypeError);
  const reason = new Error('the model call was cancelled');
  const controller = new AbortController();
  controller.abort(reason);
  for (const sessionId of [heldBy(a), heldBy(b)]) {
    await expect(a.callTool(sessionId, 'schedule_create', args, { signal: controller.signal })).rejects.toBe(reason);
  }
  expect((await run(db.pool, `select id from ${c.schema}.tasks`)).rows).toEqual([]);
});
