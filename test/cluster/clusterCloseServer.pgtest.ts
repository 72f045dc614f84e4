// A clean close of a cluster Host against a real server (`npm run test:postgres`), on the
// process's timers: seven starts and closes, each on a pool of its own that the test ends as soon
// as `close()` resolves (as a Host does on shutdown). The keeper ticks every 100 ms, so ticks fall
// inside the closes; nothing may be logged, during the close or after the pool has ended.
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { createClusterService } from '../../src/cluster/clusterService.ts';
import { createFakeSessions } from '../../src/testing.ts';
import { randomSchema, run, serverPool } from '../storage/postgresHarness.ts';
import { usePostgresServer } from '../support/postgresServer.ts';

const { admin, schemas } = usePostgresServer();

describe('createClusterService on the server: a clean close', () => {
  it('seven starts and closes, the pool ended right after each close: no warning or error, no membership left', async () => {
    const logged: string[] = [];
    const logger = {
      warn: (message: string) => void logged.push(`warn: ${message}`),
      error: (message: string) => void logged.push(`error: ${message}`),
    };
    for (let round = 0; round < 7; round++) {
      const schema = randomSchema();
      schemas.push(schema);
      const pool = serverPool(`agent-schedule-test-close-${round}`, 8);
      const host = await createClusterService({
        pool: pool as SqlPool,
        schema,
        hostId: `host-${round}`,
        sessions: createFakeSessions(),
        logger,
        leaseMs: 300,
      });
      const created = await host.callTool('user-1', 'schedule_create', { title: 'T', prompt: 'p', after_seconds: 600 });
      expect(created).toMatchObject({ id: expect.any(String) });
      // Let ticks of the keeper's loop come and go before closing.
      await host.step();
      await host.close();
      await pool.end();
      // A tick or step left behind would run on the ended pool and log; one more round trip gives it the chance.
      await run(admin, 'select 1');
      expect((await run(admin, `select host_id from "${schema}".cluster_hosts`)).rows).toEqual([]);
    }
    expect(logged).toEqual([]);
  });
});
