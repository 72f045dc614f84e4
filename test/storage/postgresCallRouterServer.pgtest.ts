// The call router against a real server (`npm run test:postgres`; PG_TEST_URL): notifications
// through the default listener (a pool connection kept for listening), a pool wide enough for
// callers and owners to run at once, listening connections the server terminates (opened again),
// and the round trip of a routed call measured.
import type pg from 'pg';
import { callRouter } from '../../src/adapters/postgres/callRouter.ts';
import { migrate } from '../../src/adapters/postgres/migrations.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { describeCallRouter } from './postgresCallRouter.ts';
import { randomSchema, run, serverPool } from './postgresHarness.ts';
import { sessionIn } from './postgresLeases.ts';

const server = usePostgresServer();
let wide: pg.Pool;

beforeAll(() => {
  wide = serverPool('agent-schedule-test-router', 16);
});
afterAll(() => wide.end());

/** A migrated schema whose every shard Host `a` holds at epoch 1 for an hour. */
async function schemaOwnedByA(): Promise<string> {
  const schema = randomSchema();
  server.schemas.push(schema);
  const client = await server.admin.connect();
  try {
    await migrate(client, schema);
  } finally {
    client.release();
  }
  await run(server.admin, `update "${schema}".shard_leases set owner = 'a', epoch = 1, expires_at = now() + interval '1 hour'`);
  return schema;
}

describeCallRouter('the server', () => ({ pool: wide, admin: server.admin, schemas: server.schemas, listen: undefined }));

describe('the call router on the server: the listening connection', () => {
  it('a listening connection the server terminates is opened again, and a call routed after it is answered without polling', async () => {
    const schema = await schemaOwnedByA();
    const errors: string[] = [];
    const a = callRouter({
      pool: wide,
      schema,
      hostId: 'a',
      owns: () => 1,
      execute: async (call) => call.request,
      pollMs: 60_000,
      onError: (error) => errors.push((error as Error).message),
    });
    const b = callRouter({
      pool: wide,
      schema,
      hostId: 'b',
      owns: () => undefined,
      execute: async () => null,
      pollMs: 60_000,
      onError: (error) => errors.push((error as Error).message),
    });
    await a.start();
    try {
      expect(await b.route(sessionIn(1), 'before')).toBe('before');
      const terminated = await run(
        server.admin,
        `select pg_terminate_backend(pid) as done from pg_stat_activity
         where application_name = 'agent-schedule-test-router' and query like 'listen "${schema}_%'`,
      );
      expect(terminated.rows.length).toBe(2);
      // Both Hosts learn that their listening connection is gone.
      for (let i = 0; i < 250 && errors.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(errors).toHaveLength(2);
      expect(errors.every((m) => /terminat/i.test(m))).toBe(true);
      expect(await b.route(sessionIn(1), 'after')).toBe('after');
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});

describe('the call router on the server: round trip', () => {
  it('200 calls routed one after another from Host B to the owner A all come back (median round trip logged)', async () => {
    const schema = await schemaOwnedByA();
    const a = callRouter({ pool: wide, schema, hostId: 'a', owns: () => 1, execute: async (call) => call.request });
    const b = callRouter({ pool: wide, schema, hostId: 'b', owns: () => undefined, execute: async () => null });
    await a.start();
    try {
      const times: number[] = [];
      for (let n = 0; n < 200; n++) {
        const started = performance.now();
        expect(await b.route(sessionIn(n % 256), { n })).toEqual({ n });
        times.push(performance.now() - started);
      }
      times.sort((x, y) => x - y);
      const at = (q: number) => (times[Math.floor(q * (times.length - 1))] ?? 0).toFixed(2);
      console.log(`[call router] round trip of 200 routed calls: median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`);
    } finally {
      await b.stop();
      await a.stop();
    }
  });
});
