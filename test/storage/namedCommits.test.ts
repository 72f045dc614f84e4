// Commits as named prepared statements (postgresStorage's `preparedStatements`, default on): every
// one-statement commit of a shape goes out under one name, the name a digest of its text (so
// storages sharing a pool never give one name two texts), and what they write reads back; switched
// off, the same commits go out unnamed. PGlite, so `npm test` runs it; the server suite and the
// cluster trials run the named statements on node-postgres against a real server.
import type { NamedStatement, SqlClient, SqlPool } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { randomSchema, usePglite } from './postgresHarness.ts';

const db = usePglite();

/** `pool`, recording each statement sent: its name (undefined when unnamed) and its first words. */
function recording(pool: SqlPool): { pool: SqlPool; sent: Array<{ name: string | undefined; head: string }> } {
  const sent: Array<{ name: string | undefined; head: string }> = [];
  return {
    sent,
    pool: {
      connect: async (): Promise<SqlClient> => {
        const client = await pool.connect();
        return {
          query: (statement: string | NamedStatement, values?: readonly unknown[]) => {
            const named = typeof statement === 'string' ? undefined : statement;
            const text = named?.text ?? (statement as string);
            sent.push({ name: named?.name, head: text.trim().split(/\s+/)[0] ?? '' });
            return client.query(statement, values);
          },
          release: (error) => client.release(error),
        };
      },
      end: () => pool.end(),
    },
  };
}

const row = (n: number, sessionId: string): TaskRow => ({
  sessionId,
  status: 'active',
  record: { id: `sch_${n}`, kind: 'at', title: `t${n}`, prompt: `p${n}`, scheduledAt: '2031-01-01T00:00:00.000Z' },
});

/**
 * Opens a storage on `schema` of `pool` and takes task numbers from its sequence (so a put of them
 * is a one-statement commit); `commits` then puts two rows one at a time and deletes the first.
 */
async function commitThree(pool: SqlPool, schema: string, preparedStatements?: boolean) {
  const storage = postgresStorage({ pool, schema, ...(preparedStatements === undefined ? {} : { preparedStatements }) });
  await storage.open();
  const [a, b] = (await storage.allocateTaskNumbers?.(2)) ?? [];
  return {
    storage,
    ids: [`sch_${a}`, `sch_${b}`],
    commits: async () => {
      await storage.commit({ puts: [row(Number(a), 's1')], deletes: [] });
      await storage.commit({ puts: [row(Number(b), 's2')], deletes: [] });
      await storage.commit({ puts: [], deletes: [`sch_${a}`] });
    },
  };
}

describe('commits as named prepared statements', () => {
  it('sends each commit shape under one name, a digest of its text, and reads back what they wrote', async () => {
    const schema = randomSchema();
    db.schemas.push(schema);
    const { pool, sent } = recording(db.pool);
    const { storage, ids, commits } = await commitThree(pool, schema);
    sent.length = 0;
    await commits();
    const writes = sent.filter((s) => s.head === 'with');
    expect(writes).toHaveLength(3);
    const [first, second, third] = writes.map((w) => w.name);
    expect(first).toMatch(/^agent_schedule_[0-9a-f]{32}$/);
    expect(second).toBe(first);
    expect(third).toMatch(/^agent_schedule_[0-9a-f]{32}$/);
    expect(third).not.toBe(first);
    await storage.close();

    const reopened = postgresStorage({ pool: db.pool, schema });
    const domain = await reopened.open();
    expect(domain.tasks.map((t) => t.record.id)).toEqual([ids[1]]);
    await reopened.close();
  });

  it('gives a commit of the same shape on another storage of the same schema the same name', async () => {
    const schema = randomSchema();
    db.schemas.push(schema);
    const a = recording(db.pool);
    const first = await commitThree(a.pool, schema);
    await first.commits();
    await first.storage.close();
    const b = recording(db.pool);
    const other = postgresStorage({ pool: b.pool, schema });
    await other.open();
    const [n] = (await other.allocateTaskNumbers?.(1)) ?? [];
    await other.commit({ puts: [row(Number(n), 's7')], deletes: [] });
    await other.close();
    const nameOf = (sent: typeof a.sent) => sent.filter((s) => s.head === 'with').map((s) => s.name)[0];
    expect(nameOf(b.sent)).toBe(nameOf(a.sent));
  });

  it('sends the commits unnamed with preparedStatements false', async () => {
    const schema = randomSchema();
    db.schemas.push(schema);
    const { pool, sent } = recording(db.pool);
    const { storage, commits } = await commitThree(pool, schema, false);
    sent.length = 0;
    await commits();
    const writes = sent.filter((s) => s.head === 'with');
    expect(writes).toHaveLength(3);
    expect(writes.every((w) => w.name === undefined)).toBe(true);
    await storage.close();
  });
});
