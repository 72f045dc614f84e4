// A Host paused in the middle of a commit or an allocation (stopped, or stalled) must not hold up
// the other Hosts sharing the schema: a commit of allocated ids and an allocation are each one
// statement, their own transaction, so a Host paused between its round trips holds no lock and
// no open transaction. Two storages on one schema on the real server; the first one is held right
// after its commit's (or allocation's) statement ran, before it hears the answer, while the second
// one commits and allocates, and the first one's connection is shown to be idle, not in a transaction.
import pg from 'pg';
import { type SqlClient, type SqlPool, statementText } from '../../src/adapters/postgres/driver.ts';
import { type PostgresStorage, postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { fenceEpochs, shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { row } from './fixtures.ts';
import { randomSchema, run, SERVER_URL } from './postgresHarness.ts';

const { admin, schemas } = usePostgresServer();

/** A pool that holds the answer of its next statement matching `which` until `resume()` (armed by `holdAfterNext()`). */
function pausingPool(applicationName: string): SqlPool & { holdAfterNext(which: RegExp): Promise<void>; resume(): void } {
  const pool = new pg.Pool({ connectionString: SERVER_URL, application_name: applicationName, max: 4 });
  pool.on('error', () => undefined);
  let armed: RegExp | undefined;
  let reached: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => undefined;
  return {
    connect: async (): Promise<SqlClient> => {
      const client = await (pool as unknown as SqlPool).connect();
      return {
        query: async (text, values) => {
          const result = await client.query(text, values);
          if (armed?.test(statementText(text))) {
            armed = undefined;
            reached();
            await gate;
          }
          return result;
        },
        release: (error) => client.release(error),
      };
    },
    end: () => pool.end(),
    holdAfterNext: (which) => {
      armed = which;
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      return new Promise<void>((resolve) => {
        reached = resolve;
      });
    },
    resume: () => open(),
  };
}

/** Settles with 'done', or 'blocked' when `promise` has not settled after `ms`. */
const within = (promise: Promise<unknown>, ms: number): Promise<string> =>
  Promise.race([promise.then(() => 'done'), new Promise<string>((resolve) => setTimeout(() => resolve('blocked'), ms))]);

/** The transaction states of the server backends of `applicationName`. */
async function statesOf(applicationName: string): Promise<string[]> {
  const result = await run(admin, 'select state from pg_stat_activity where application_name = $1 and state is not null', [
    applicationName,
  ]);
  return result.rows.map((r) => String(r.state));
}

describe('postgresStorage on the server: a Host paused inside a transaction', () => {
  it('holds up neither the commits nor the allocations of another storage on the schema', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const applicationName = `agent-schedule-test-paused-${schema}`;
    const pausing = pausingPool(applicationName);
    const paused = postgresStorage({ pool: pausing, schema });
    let other: PostgresStorage | undefined;
    try {
      await paused.open();
      // A second writer on the schema is a cluster Host: fenced by shard leases (a plain storage is the only writer).
      const leases = await shardLeases({ pool: admin, schema }).acquire({ hostId: 'other', leaseMs: 600_000, want: 256 });
      other = postgresStorage({ connectionString: SERVER_URL, schema, fence: { hostId: 'other', epochs: () => fenceEpochs(leases) } });
      await other.open();
      expect(await paused.allocateTaskNumbers(2)).toEqual([1, 2]);
      expect(await other.allocateTaskNumbers(2)).toEqual([3, 4]);

      // A commit of an allocated id, held with its rows written.
      const held = pausing.holdAfterNext(/\.tasks as t/);
      const commit = paused.commit({ puts: [row(1)], deletes: [] });
      await held;
      expect(await within(other.commit({ puts: [row(3, 'every', 'other-session')], deletes: [] }), 4000)).toBe('done');
      const numbers = other.allocateTaskNumbers(2);
      expect(await within(numbers, 4000)).toBe('done');
      expect(await numbers).toEqual([5, 6]);
      expect(await statesOf(applicationName)).not.toContain('idle in transaction');
      pausing.resume();
      await commit;

      // An allocation held after it took its numbers.
      const allocationHeld = pausing.holdAfterNext(/task_number/);
      const allocation = paused.allocateTaskNumbers(1);
      await allocationHeld;
      const more = other.allocateTaskNumbers(1);
      expect(await within(more, 4000)).toBe('done');
      expect(await statesOf(applicationName)).not.toContain('idle in transaction');
      pausing.resume();
      expect(await allocation).toEqual([7]);
      expect(await more).toEqual([8]);

      // A put of an id the sequence never handed out still moves the sequence past it.
      await other.commit({ puts: [row(12, 'every', 'other-session')], deletes: [] });
      expect(await other.allocateTaskNumbers(1)).toEqual([13]);
    } finally {
      pausing.resume();
      await Promise.allSettled([paused.close(), other?.close()]);
      await pausing.end();
    }
    const reopened = postgresStorage({ connectionString: SERVER_URL, schema });
    const domain = await reopened.open();
    expect(domain.tasks.map((t) => t.record.id)).toEqual(['sch_1', 'sch_3', 'sch_12']);
    expect(domain.nextTaskNumber).toBe(14);
    await reopened.close();
  });
});
