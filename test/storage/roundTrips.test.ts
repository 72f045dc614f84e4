// Round trips to the database, counted (they are deterministic where times are not): a create and a
// delivery through a service on a fenced PostgreSQL storage (as each shard of a cluster runs) and
// on a plain one, and a routed call end to end — the caller's side and the owner's together.
// PGlite, so `npm test` runs it; a real server takes the same statements.
import { callRouter } from '../../src/adapters/postgres/callRouter.ts';
import { migrate } from '../../src/adapters/postgres/migrations.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { countingPool } from '../support/countingPool.ts';
import { waitUntil } from '../support/waitUntil.ts';
import { pgliteListener, randomSchema, run, usePglite } from './postgresHarness.ts';
import { sessionIn } from './postgresLeases.ts';

const db = usePglite();

const quiet = { warn: () => undefined, error: () => undefined };

/** A migrated schema in which `hostId` holds `shards` (a fresh epoch each); answers shard → epoch. */
async function owned(hostId: string, shards: readonly number[]): Promise<{ schema: string; epochs: Map<number, number> }> {
  const schema = randomSchema();
  db.schemas.push(schema);
  const client = await db.pool.connect();
  try {
    await migrate(client, schema);
  } finally {
    client.release();
  }
  const result = await run(
    db.pool,
    `update "${schema}".shard_leases set owner = $1, epoch = epoch + 1, expires_at = now() + interval '1 hour'
     where shard = any($2::smallint[]) returning shard, epoch::int as epoch`,
    [hostId, shards],
  );
  return { schema, epochs: new Map(result.rows.map((r) => [Number(r.shard), Number(r.epoch)])) };
}

/** Creates a reminder through a service on `storage` and lets it be delivered: the statements of each. */
async function createAndDeliver(
  storage: ReturnType<typeof postgresStorage>,
  counting: ReturnType<typeof countingPool>,
  sessionId: string,
): Promise<{ create: string[]; delivery: string[] }> {
  const clock = createManualClock('2030-01-01T09:00:00Z');
  const sessions = createFakeSessions();
  const service = await createScheduleService({ sessions, storage, clock, logger: quiet });
  clock.attach(service);
  try {
    await service.whenIdle();
    counting.reset();
    await service.callTool(sessionId, 'schedule_create', { title: 'Stretch', prompt: 'Stand up.', every_seconds: 60 });
    await service.whenIdle();
    const create = counting.summary();
    counting.reset();
    await clock.advance(60_000);
    await service.whenIdle();
    await waitUntil(() => sessions.messages(sessionId).length === 1, 'the delivery');
    return { create, delivery: counting.summary() };
  } finally {
    await service.close();
  }
}

describe('round trips to the database', () => {
  it('a create on a fenced storage takes two (a task number, then the commit with its lease check); a delivery one', async () => {
    const sessionId = sessionIn(3);
    const { schema, epochs } = await owned('a', [shardOf(sessionId)]);
    const counting = countingPool(db.pool);
    const storage = postgresStorage({ pool: counting.pool, schema, fence: { hostId: 'a', epochs: () => epochs } });
    const { create, delivery } = await createAndDeliver(storage, counting, sessionId);
    expect(create).toEqual(['with counter as', 'with touched as']);
    expect(delivery).toEqual(['with touched as']);
  });

  it('a create on a plain storage takes two as well (the commit renews the owner row in its statement); a delivery one', async () => {
    const schema = randomSchema();
    db.schemas.push(schema);
    const counting = countingPool(db.pool);
    const { create, delivery } = await createAndDeliver(
      // A lease long enough that its timed renewal never falls within the test.
      postgresStorage({ pool: counting.pool, schema, ownerLeaseMs: 3_600_000 }),
      counting,
      'demo',
    );
    expect(create).toEqual(['with counter as', 'with renewed as']);
    expect(delivery).toEqual(['with renewed as']);
  });

  it('a routed call takes three: the insert (notifying the owner), the claim, the reply (in its notification); the row goes with the next insert', async () => {
    const sessionId = sessionIn(5);
    const { schema, epochs } = await owned('a', [shardOf(sessionId)]);
    const counting = countingPool(db.pool);
    // No polling within the test: every statement counted is on the call's path.
    const common = { pool: counting.pool, schema, pollMs: 60_000, timeoutMs: 10_000 } as const;
    const owner = callRouter({
      ...common,
      hostId: 'a',
      owns: (shard) => epochs.get(shard),
      execute: async (call) => call.request,
      listen: pgliteListener(() => db.db),
    });
    const caller = callRouter({
      ...common,
      hostId: 'b',
      owns: () => undefined,
      execute: async () => null,
      listen: pgliteListener(() => db.db),
    });
    try {
      await owner.start();
      await caller.start();
      counting.reset();
      expect(await caller.route(sessionId, { n: 1 })).toEqual({ n: 1 });
      expect(counting.summary()).toEqual(['with gone as', 'with owned as', 'with a as']);
      expect(await caller.route(sessionId, { n: 2 })).toEqual({ n: 2 });
      expect(counting.count()).toBe(6);
      const rows = await run(db.pool, `select id::int as id from "${schema}".routed_calls order by id`);
      expect(rows.rows).toHaveLength(1);
      // Stopping deletes the rows of the replies it took from notifications.
      await caller.stop();
      expect(counting.count()).toBe(7);
      expect((await run(db.pool, `select id from "${schema}".routed_calls`)).rows).toEqual([]);
    } finally {
      await caller.stop();
      await owner.stop();
    }
  });
});
