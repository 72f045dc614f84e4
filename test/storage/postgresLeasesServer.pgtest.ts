// Shard leases, fenced commits and shared commits against a real server (`npm run test:postgres`; PG_TEST_URL),
// with a pool wide enough for acquires to really run at once, and the lock a fenced commit holds
// on its lease rows: while the commit's transaction is open, a Host acquiring the lease after it
// expired skips the shard, and takes it only once the commit has ended, while the owner's renewal
// of the same lease goes through without waiting for the commit; and a Host committing
// without pause while another takes its shard over: no commit that began after the takeover is
// written, and every refused one wrote nothing.
import type pg from 'pg';
import { type NamedStatement, type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';
import { checkFence } from '../../src/adapters/postgres/fence.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { fenceEpochs, shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { row } from './fixtures.ts';
import { dropSchemas, randomSchema, run, serverPool } from './postgresHarness.ts';
import { describeShardLeases, sessionIn } from './postgresLeases.ts';
import { describeSharedCommits } from './postgresSharedCommits.ts';

let admin: pg.Pool;
let wide: pg.Pool;
const schemas: string[] = [];

beforeAll(() => {
  admin = serverPool();
  wide = serverPool('agent-schedule-test-leases', 12);
});
afterEach(() => dropSchemas(admin, schemas));
afterAll(async () => {
  await wide.end();
  await admin.end();
});

describeShardLeases('the server', () => ({ pool: wide, admin, schemas }));
describeSharedCommits('the server', () => ({ pool: wide, admin, schemas }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fenced commits on the server: the lease lock', () => {
  it('a takeover cannot slip between the check and the write: the lease row stays locked until the commit ends', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const leases = shardLeases({ pool: wide, schema });
    const held = await leases.acquire({ hostId: 'a', leaseMs: 400, want: 1 });
    expect(held).toMatchObject([{ shard: 0, epoch: 1 }]);
    const committing = await wide.connect();
    try {
      await committing.query('begin');
      await checkFence(committing, `"${schema}"`, { hostId: 'a', epochs: () => fenceEpochs(held) }, [0]);
      // The owner renews while the commit's transaction is open: the renewal does not wait for it.
      const renewing = leases.renew('a', 400);
      const first = await Promise.race([renewing, sleep(2_000).then(() => 'still waiting' as const)]);
      expect(first).toMatchObject([{ shard: 0, epoch: 1 }]);
      // The lease expires while the commit's transaction is still open.
      while ((await leases.held('a')).length > 0) await sleep(50);
      expect(await leases.acquire({ hostId: 'b', leaseMs: 60_000, want: 1 })).toMatchObject([{ shard: 1, epoch: 1 }]);
      await committing.query('commit');
    } finally {
      committing.release();
    }
    expect(await leases.acquire({ hostId: 'b', leaseMs: 60_000, want: 1 })).toMatchObject([{ shard: 0, epoch: 2 }]);
    const rows = await run(admin, `select owner, epoch::int as epoch from "${schema}".shard_leases where shard = 0`);
    expect(rows.rows).toEqual([{ owner: 'b', epoch: 2 }]);
  });

  it('a Host committing without pause while another takes the shard over: nothing is written after the takeover, nothing refused is written', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const leases = shardLeases({ pool: wide, schema });
    const epochs = fenceEpochs(await leases.acquire({ hostId: 'a', leaseMs: 60_000, want: 256 }));
    const storage = postgresStorage({ pool: wide, schema, fence: { hostId: 'a', epochs: () => epochs } });
    await storage.open();
    const base = row(1, 'every', sessionIn(0));
    const version = (n: number): TaskRow => ({ ...base, record: { ...base.record, title: `Version ${n}` } });
    await storage.commit({ puts: [version(0)], deletes: [] });

    let takenAt = Number.POSITIVE_INFINITY;
    const takeover = (async () => {
      await sleep(30);
      await run(admin, `update "${schema}".shard_leases set expires_at = now() - interval '1 second' where shard = 0`);
      for (;;) {
        const taken = await leases.acquire({ hostId: 'b', leaseMs: 60_000, want: 1 });
        if (taken.length > 0) {
          takenAt = performance.now();
          return taken;
        }
      }
    })();
    const answers: { started: number; ok: boolean; code?: string | undefined }[] = [];
    for (let n = 1; answers.filter((a) => a.started > takenAt).length < 5; n++) {
      const started = performance.now();
      const ok = await storage.commit({ puts: [version(n)], deletes: [] }).then(
        () => true,
        (error: unknown) => {
          answers.push({ started, ok: false, code: (error as { code?: string }).code });
          return false;
        },
      );
      if (ok) answers.push({ started, ok });
    }
    expect(await takeover).toMatchObject([{ shard: 0, epoch: 2 }]);
    await storage.close();
    const written = answers.filter((a) => a.ok).length;
    console.log(`[fencing] ${written} commits written before the takeover, ${answers.length - written} refused`);
    expect(answers.filter((a) => a.started > takenAt).every((a) => !a.ok && a.code === 'persistence_uncertain')).toBe(true);
    const stored = await run(admin, `select version::int as version, row->'record'->>'title' as title from "${schema}".tasks`);
    // Once the lease expired every commit was refused, so the written ones are the first `written`.
    expect(stored.rows).toEqual([{ version: written + 1, title: `Version ${written}` }]);
  });

  it('a Host paused in the middle of a commit does not keep its shard: the server ends the idle transaction and a takeover goes ahead', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const leases = shardLeases({ pool: wide, schema });
    const epochs = fenceEpochs(await leases.acquire({ hostId: 'a', leaseMs: 60_000, want: 1 }));
    // Every other shard is held elsewhere, so shard 0 is the only one a takeover can get.
    await run(admin, `update "${schema}".shard_leases set owner = 'c', epoch = 1, expires_at = now() + interval '1 hour' where shard <> 0`);
    // The Host stalls after its fence check: the write is sent only 3 s later.
    const sent: string[] = [];
    const stalling: SqlPool = {
      connect: async () => {
        const client = await wide.connect();
        client.on('error', () => undefined);
        return {
          query: async (statement: string | NamedStatement, values?: readonly unknown[]) => {
            const text = statementText(statement);
            sent.push(text.split('\n')[0] ?? '');
            if (text.trimStart().startsWith('insert into')) await sleep(3_000);
            return typeof statement === 'string' ? client.query(text, values as unknown[]) : client.query(statement as never);
          },
          release: (error?: Error | boolean) => client.release(error),
        };
      },
      end: async () => undefined,
    };
    const storage = postgresStorage({ pool: stalling, schema, fence: { hostId: 'a', epochs: () => epochs, idleTimeoutMs: 300 } });
    await storage.open();
    const started = performance.now();
    const commit = storage.commit({ puts: [row(1, 'every', sessionIn(0))], deletes: [] }).then(
      () => 'written',
      (error: unknown) => (error as { code?: string }).code,
    );
    await sleep(100);
    await run(admin, `update "${schema}".shard_leases set expires_at = now() - interval '1 second' where shard = 0`);
    let taken: unknown[] = [];
    while (taken.length === 0 && performance.now() - started < 2_500) {
      taken = await leases.acquire({ hostId: 'b', leaseMs: 60_000, want: 1 });
      if (taken.length === 0) await sleep(50);
    }
    // Taken while the paused commit still waited: its locks went with its ended transaction.
    expect(taken).toMatchObject([{ shard: 0, epoch: 2 }]);
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(await commit).toBe('persistence_uncertain');
    expect(sent).toContain('begin; set local idle_in_transaction_session_timeout = 300');
    expect((await run(admin, `select count(*)::int as n from "${schema}".tasks`)).rows).toEqual([{ n: 0 }]);
    await storage.close();
  });
});
