// The PostgreSQL storage against a real server (`npm run test:postgres`; PG_TEST_URL, default
// postgres://postgres@127.0.0.1:5432/test): the storage conformance suite through the storage's
// own `pg` pool, the shared behaviour tests, and connection loss — a backend terminated in the
// middle of a commit, and the database unreachable behind a loopback proxy that is stopped and
// started again. Each test uses its own schema, dropped after it.
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/adapters/postgres/migrations.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { describeStorageConformance } from './conformance.ts';
import { row } from './fixtures.ts';
import { postgresHarness, randomSchema, run, SERVER_URL } from './postgresHarness.ts';
import { describeReadOnDemand } from './postgresOnDemand.ts';
import { describePostgresOwner } from './postgresOwner.ts';
import { startProxy } from './postgresProxy.ts';
import { describePostgresBehaviour } from './postgresShared.ts';

const { admin, schemas } = usePostgresServer();

describeStorageConformance(
  'postgresStorage on the server',
  postgresHarness(
    (schema) => ({ connectionString: SERVER_URL, schema }),
    { connect: () => admin.connect(), end: async () => undefined },
    schemas,
  ),
);
describePostgresBehaviour('the server', () => ({ pool: admin, admin, schemas }));
describePostgresOwner('the server', () => ({ pool: admin, admin, schemas }));
describeReadOnDemand('the server', () => ({ pool: admin, admin, schemas }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const outcome = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error as { code?: string }).code ?? `untyped: ${String(error)}`,
  );

/** Retries `attempt` (each answer recorded) until it resolves; at most `limit` attempts. */
async function untilResolved(attempt: () => Promise<void>, limit = 200): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < limit; i++) {
    const answer = await outcome(attempt());
    answers.push(answer);
    if (answer === 'resolved') break;
    await sleep(25);
  }
  return answers;
}

describe('postgresStorage on the server: connection loss', () => {
  it('a backend terminated in the middle of a commit answers persistence_uncertain; the storage reconnects; nothing acknowledged is lost', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const applicationName = `agent-schedule-test-${schema}`;
    const storage = postgresStorage({ connectionString: SERVER_URL, schema, applicationName, reconnect: { initialMs: 50, maxMs: 200 } });
    await storage.open();
    await storage.commit({ puts: [row(1)], deletes: [], nextTaskNumber: 2 });

    // Hold a lock so the next commit waits inside its transaction, then terminate its backend.
    const blocker = await admin.connect();
    await blocker.query('begin');
    await blocker.query(`lock table "${schema}".tasks in exclusive mode`);
    const pending = outcome(storage.commit({ puts: [row(2)], deletes: [], nextTaskNumber: 3 }));
    let waiting = 0;
    while (waiting === 0) {
      await sleep(10);
      const seen = await run(
        admin,
        `select count(*)::int as n from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'`,
        [applicationName],
      );
      waiting = Number(seen.rows[0]?.n ?? 0);
    }
    const killed = await run(
      admin,
      'select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1) k',
      [applicationName],
    );
    const answer = await pending;
    await blocker.query('rollback');
    blocker.release();
    console.log(`[connection loss] terminated ${String(killed.rows[0]?.n)} backend(s); the commit in flight answered ${answer}`);
    expect(answer).toBe('persistence_uncertain');

    const retries = await untilResolved(() => storage.commit({ puts: [row(2)], deletes: [], nextTaskNumber: 3 }));
    console.log(`[connection loss] retries of the same commit answered: ${retries.join(', ')}`);
    expect(retries.at(-1)).toBe('resolved');
    expect(retries.every((a) => a === 'resolved' || a === 'persistence_uncertain')).toBe(true);
    await storage.commit({ puts: [row(3)], deletes: [] });
    await storage.close();
    const reopened = postgresStorage({ pool: admin, schema });
    expect(await reopened.open()).toEqual({ tasks: [row(1), row(2), row(3)], nextTaskNumber: 4 });
    await reopened.close();
  });

  it('while the database is unreachable every commit answers persistence_uncertain; once it is back the storage reconnects with backoff and nothing acknowledged is lost', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const port = Number(new URL(SERVER_URL).port || 5432);
    const proxy = await startProxy(port, new URL(SERVER_URL).hostname);
    const url = new URL(SERVER_URL);
    url.port = String(proxy.port);
    const storage = postgresStorage({ connectionString: url.toString(), schema, reconnect: { initialMs: 20, maxMs: 100 } });
    try {
      await storage.open();
      await storage.commit({ puts: [row(1)], deletes: [], nextTaskNumber: 2 });
      await proxy.stop();

      const during: string[] = [];
      for (let i = 0; i < 6; i++) {
        during.push(await outcome(storage.commit({ puts: [row(2)], deletes: [], nextTaskNumber: 3 })));
        await sleep(30);
      }
      // A change made during the outage and never retried: it must not appear later.
      during.push(await outcome(storage.commit({ puts: [row(9)], deletes: ['sch_1'] })));
      const message = await storage.commit({ puts: [row(2)], deletes: [] }).catch((error: unknown) => (error as Error).message);
      console.log(`[connection loss] database unreachable: ${during.length} commits answered ${[...new Set(during)].join(', ')}`);
      console.log(`[connection loss] e.g. "${String(message)}"`);
      expect(during).toEqual(Array(7).fill('persistence_uncertain'));

      await proxy.start();
      const retries = await untilResolved(() => storage.commit({ puts: [row(2)], deletes: [], nextTaskNumber: 3 }));
      console.log(`[connection loss] after the database came back, retries answered: ${retries.join(', ')}`);
      expect(retries.at(-1)).toBe('resolved');
      await storage.commit({ puts: [row(3)], deletes: [] });
      await storage.close();
    } finally {
      await proxy.stop();
    }
    const reopened = postgresStorage({ pool: admin, schema });
    expect(await reopened.open()).toEqual({ tasks: [row(1), row(2), row(3)], nextTaskNumber: 4 });
    await reopened.close();
  });

  it('open against an unreachable database refuses with persistence_uncertain and changes nothing', async () => {
    const proxy = await startProxy(5432);
    const url = new URL(SERVER_URL);
    url.port = String(proxy.port);
    await proxy.stop();
    const storage = postgresStorage({ connectionString: url.toString(), schema: randomSchema() });
    const answer = await outcome(storage.open());
    expect(answer).toBe('persistence_uncertain');
    expect(await outcome(storage.commit({ puts: [row(1)], deletes: [] }))).toBe('internal_error');
  });
});

describe('agent-schedule migrate', () => {
  it('creates the schema, then finds nothing to do; a newer schema exits 1 with corrupt_schedule_log', async () => {
    const { main } = await import('../../src/cli/main.ts');
    const schema = randomSchema();
    schemas.push(schema);
    const lines: string[] = [];
    const io = { out: (line: string) => void lines.push(line), err: (line: string) => void lines.push(`err: ${line}`) };
    expect(await main(['migrate', '--url', SERVER_URL, '--schema', schema], io)).toBe(0);
    expect(await main(['migrate', '--url', SERVER_URL, '--schema', schema, '--json'], io)).toBe(0);
    await run(admin, `insert into "${schema}".schema_migrations (version, name) values (1000, 'future')`);
    expect(await main(['migrate', '--url', SERVER_URL, '--schema', schema], io)).toBe(1);
    expect(lines.slice(0, 3)).toEqual([
      `schema ${schema}: version 0 -> ${SCHEMA_VERSION} (applied ${MIGRATIONS.map((m) => m.version).join(', ')})`,
      JSON.stringify({ schema, from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: [] }),
      `err: corrupt_schedule_log: The PostgreSQL schema "${schema}" is at version 1000, newer than this agent-schedule knows (${SCHEMA_VERSION}); upgrade agent-schedule to open it. Nothing was changed.`,
    ]);
  });
});
