// Reading a PostgreSQL storage ahead of its open (`prime`), on PGlite: only a fenced storage of
// given shards reads ahead, and only while closed; the open after it answers what was read while
// the shard's rows are unchanged, and reads again once they changed. (The cluster's hand-over
// suite, handOverSuite.ts, runs both through two Hosts.)
import { type NamedStatement, type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { run, usePglite } from './postgresHarness.ts';

const db = usePglite();

let schemaCount = 0;
const schemaOf = (): string => {
  const schema = `as_test_ahead_${Date.now().toString(36)}_${++schemaCount}`;
  db.schemas.push(schema);
  return schema;
};

test('only a closed, fenced storage of given shards reads ahead', async () => {
  const schema = schemaOf();
  const pool = db.pool as SqlPool;
  await expect(postgresStorage({ pool, schema }).prime()).rejects.toMatchObject({ code: 'internal_error' });
  const unscoped = postgresStorage({ pool, schema, fence: { hostId: 'h', epochs: () => new Map() } });
  await expect(unscoped.prime()).rejects.toMatchObject({ code: 'internal_error' });
  const fenced = postgresStorage({ pool, schema, shards: [3], fence: { hostId: 'h', epochs: () => new Map() } });
  await fenced.prime();
  await fenced.open();
  await expect(fenced.prime()).rejects.toMatchObject({ code: 'internal_error', message: expect.stringContaining('already open') });
  await fenced.close();
});

test('the open after a read ahead answers the read while the rows are unchanged, and reads again once they changed', async () => {
  const schema = schemaOf();
  const statements: string[] = [];
  // The pool with every statement recorded.
  const pool: SqlPool = {
    connect: async () => {
      const client = await db.pool.connect();
      return {
        query: (statement: string | NamedStatement, values?: readonly unknown[]) => {
          statements.push(statementText(statement));
          return client.query(statement, values);
        },
        release: (error?: Error) => client.release(error),
      };
    },
    end: async () => undefined,
  };
  const sessionId = 'user-1';
  const shard = shardOf(sessionId);
  await shardLeases({ pool, schema }).acquire({ hostId: 'h', leaseMs: 60_000, want: 256 });
  const fence = { hostId: 'h', epochs: () => new Map([[shard, 1]]) };
  const remember = (callId: string) =>
    run(
      db.pool,
      `insert into "${schema}".remembered_calls (session_id, call_id, shard, operation, arguments, answer, called_at)
       values ($1, $2, $3, 'schedule_create', '{}', '{}', now())`,
      [sessionId, callId, shard],
    );
  const reader = () => postgresStorage({ pool, schema, shards: [shard], fence });
  const readsOfCalls = () => statements.filter((text) => text.includes('remembered_calls') && text.includes('called_at_ms')).length;
  await remember('c1');
  // Unchanged: the open checks the digest and answers what was read, without reading the rows again.
  const first = reader();
  await first.prime();
  expect(readsOfCalls()).toBe(1);
  const opened = statements.length;
  expect((await first.open()).calls?.map((c) => c.callId)).toEqual(['c1']);
  expect(statements.slice(opened).filter((text) => text.includes('md5('))).toHaveLength(1);
  expect(readsOfCalls()).toBe(1);
  await first.close();
  // Changed after the read: the open reads again and sees the change.
  const second = reader();
  await second.prime();
  await remember('c2');
  expect((await second.open()).calls?.map((c) => c.callId)).toEqual(['c1', 'c2']);
  expect(readsOfCalls()).toBe(3);
  await second.close();
});
