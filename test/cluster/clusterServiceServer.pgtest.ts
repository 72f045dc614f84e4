// The cluster suite against a real server (`npm run test:postgres`; PG_TEST_URL), with the default
// listener: a connection of the pool kept for notifications.
import type pg from 'pg';
import { serverPool } from '../storage/postgresHarness.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { describeCluster } from './clusterSuite.ts';

const server = usePostgresServer();
let pool: pg.Pool;

beforeAll(() => {
  pool = serverPool('agent-schedule-test-cluster', 24);
});
afterAll(() => pool.end());

describeCluster('the server', () => ({ pool, schemas: server.schemas }));
