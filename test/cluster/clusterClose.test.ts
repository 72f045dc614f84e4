// A clean close of a cluster Host, on PGlite: `close()` resolves only once the shard keeper, its
// timers and every step or renewal in flight have stopped. The keeper's timers are fired by hand
// at every statement the keeper sends while the Host closes (a tick at each point of the close);
// after `close()` resolves the keeper's pool counts as ended. Across repeated starts and closes
// nothing is logged, the membership is gone, and the keeper sends nothing after it left.
import { type SqlClient, type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';
import type { KeeperTimers } from '../../src/adapters/postgres/shardKeeper.ts';
import { createClusterService } from '../../src/cluster/clusterService.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { pgliteListener, randomSchema, run, usePglite } from '../storage/postgresHarness.ts';

const db = usePglite();

/** Keeper timers the test fires itself. */
function handTimers(): KeeperTimers & { fireAll(): void } {
  const pending = new Map<number, () => void>();
  let next = 0;
  return {
    setTimeout: (fn, _ms) => {
      pending.set(++next, fn);
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
    fireAll: () => {
      const due = [...pending];
      pending.clear();
      for (const [, fn] of due) fn();
    },
  };
}

/** The keeper's pool: records its statements, fires every keeper timer before each while `ticking`, refuses all once `ended`. */
function keeperPoolOf(timers: { fireAll(): void }) {
  const state = { ticking: false, ended: false, statements: [] as string[] };
  const pool: SqlPool = {
    connect: async (): Promise<SqlClient> => {
      if (state.ended) throw new Error('Cannot use a pool after calling end on the pool');
      const client = await db.pool.connect();
      return {
        query: (text, values) => {
          state.statements.push(statementText(text).trim().split(/\s+/).slice(0, 3).join(' '));
          if (state.ticking) timers.fireAll();
          return client.query(text, values);
        },
        release: (error) => client.release(error),
      };
    },
    end: async () => undefined,
  };
  return { pool, state };
}

describe('createClusterService: a clean close', () => {
  test('repeated five times, with a keeper tick at every statement of the close: nothing logged, no membership left, no keeper statement after it left', async () => {
    for (let round = 0; round < 5; round++) {
      const schema = randomSchema();
      db.schemas.push(schema);
      const logged: string[] = [];
      const timers = handTimers();
      const keeper = keeperPoolOf(timers);
      const host = await createClusterService({
        pool: db.pool,
        schema,
        hostId: `host-${round}`,
        sessions: createFakeSessions(),
        clock: createManualClock('2030-01-01T08:00:00.000Z'),
        logger: { warn: (message) => void logged.push(`warn: ${message}`), error: (message) => void logged.push(`error: ${message}`) },
        timers,
        keeperPool: keeper.pool,
        leaseMs: 3_000,
        routing: { listen: pgliteListener(() => db.db) },
      });
      expect(host.held().size).toBe(256);
      const created = await host.callTool('user-1', 'schedule_create', { title: 'T', prompt: 'p', after_seconds: 600 });
      expect(created).toMatchObject({ id: expect.any(String) });

      keeper.state.ticking = true;
      keeper.state.statements.length = 0;
      await host.close();
      keeper.state.ended = true;
      timers.fireAll();
      // Work a stray tick queued behind the close would have sent by now.
      await run(db.pool, 'select 1');
      await run(db.pool, 'select 1');

      expect(logged).toEqual([]);
      expect((await run(db.pool, `select host_id from "${schema}".cluster_hosts`)).rows).toEqual([]);
      expect(keeper.state.statements.at(-1)).toBe('delete from "' + schema + '".cluster_hosts');
    }
  });
});
