// A shard's hand-over against a real server (`npm run test:postgres`; PG_TEST_URL): each Host on
// its own connections, notifications on a connection of the pool kept for them.
import type pg from 'pg';
import { poolListener } from '../../src/adapters/postgres/notificationListener.ts';
import { serverPool } from '../storage/postgresHarness.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { describeHandOver } from './handOverSuite.ts';

const server = usePostgresServer();
let pool: pg.Pool;

beforeAll(() => {
  pool = serverPool('agent-schedule-test-handover', 24);
});
afterAll(() => pool.end());

describeHandOver('the server', () => ({ pool, schemas: server.schemas, listen: poolListener(pool) }));
