// One writer per schema, registered for PGlite (in `npm test`) and for the real server
// (`npm run test:postgres`): a plain PostgreSQL storage owns its schema through the owner row
// (storageOwner.ts). A second plain opener is refused with `storage_locked`, naming the holder and
// the cluster service, until the first closes; a holder whose lease ran out, or whose process on
// this machine has ended, is taken over, and the storage it was taken from then commits nothing;
// a fenced storage (the cluster's) takes no part in it.
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { SchemaLockedError } from '../../src/adapters/postgres/storageOwner.ts';
import { row } from './fixtures.ts';
import { randomSchema, run } from './postgresHarness.ts';
import type { PostgresBackend } from './postgresShared.ts';

/** What an open that should fail rejected with. */
const refusal = (promise: Promise<unknown>): Promise<SchemaLockedError> =>
  promise.then(
    () => {
      throw new Error('the open was not refused');
    },
    (error: unknown) => error as SchemaLockedError,
  );

/** The ids of the rows stored in `schema`. */
async function storedIds(backend: PostgresBackend, schema: string): Promise<string[]> {
  const result = await run(backend.admin, `select id from "${schema}".tasks order by position`);
  return result.rows.map((r) => String(r.id));
}

export function describePostgresOwner(name: string, backend: () => PostgresBackend): void {
  describe(`postgresStorage on ${name}: one writer per schema`, () => {
    const schemaOf = () => {
      const schema = randomSchema();
      backend().schemas.push(schema);
      return schema;
    };
    const storageOn = (schema: string) => postgresStorage({ pool: backend().pool, schema });

    it('a second plain opener is refused storage_locked, naming the holder and the cluster service, until the first closes', async () => {
      const schema = schemaOf();
      const first = storageOn(schema);
      await first.open();
      const second = storageOn(schema);
      const refused = await refusal(second.open());
      expect(refused).toBeInstanceOf(SchemaLockedError);
      expect(refused.code).toBe('storage_locked');
      expect(refused.holder).toMatchObject({ host: hostname(), pid: process.pid });
      expect(refused.message).toContain(`host ${hostname()}, pid ${process.pid}, application_name`);
      expect(refused.message).toContain('the cluster service');
      expect(refused.message).toContain('createClusterService from agent-schedule/postgres');
      await first.commit({ puts: [row(1)], deletes: [], nextTaskNumber: 2 });
      await first.close();
      expect(await second.open()).toEqual({ tasks: [row(1)], nextTaskNumber: 2 });
      await second.close();
    });

    it('an open after a clean close takes the row in one statement, recording its own connection as the holder', async () => {
      const schema = schemaOf();
      const first = storageOn(schema);
      await first.open();
      await first.close();
      const statements: string[] = [];
      const pool = backend().pool;
      const counting: SqlPool = {
        connect: async () => {
          const client = await pool.connect();
          return {
            query: (text, values) => {
              statements.push(typeof text === 'string' ? text : text.text);
              return client.query(text, values);
            },
            release: (error) => client.release(error),
          };
        },
        end: () => Promise.resolve(),
      };
      const second = postgresStorage({ pool: counting, schema });
      await second.open();
      expect(statements.filter((text) => /storage_owner/.test(text))).toHaveLength(1);
      expect(statements).not.toContain('begin');
      const app = (await run(pool, `select current_setting('application_name') as app`)).rows[0]?.app;
      const refused = await refusal(storageOn(schema).open());
      expect(refused.holder).toMatchObject({ host: hostname(), pid: process.pid, applicationName: String(app) });
      expect(refused.holder.backendPid).toBeGreaterThan(0);
      await second.close();
    });

    it('a holder on another machine is refused while its lease lasts and taken over once it ran out; the old holder then commits nothing', async () => {
      const schema = schemaOf();
      const first = storageOn(schema);
      await first.open();
      const owner = `"${schema}".storage_owner`;
      await run(backend().admin, `update ${owner} set holder = $1::json`, [
        JSON.stringify({ host: 'elsewhere.example', pid: 4242, applicationName: 'agent-schedule', backendPid: 99 }),
      ]);
      const second = storageOn(schema);
      const refused = await refusal(second.open());
      expect(refused.code).toBe('storage_locked');
      expect(refused.message).toContain('host elsewhere.example, pid 4242, application_name "agent-schedule", backend pid 99');

      await run(backend().admin, `update ${owner} set expires_at = now() - interval '1 second'`);
      await second.open();
      const lost = await first.commit({ puts: [row(2)], deletes: [] }).then(
        () => undefined,
        (error: unknown) => error as SchemaLockedError,
      );
      expect(lost?.code).toBe('storage_locked');
      expect(lost?.message).toContain(`was taken over by another schedule storage (host ${hostname()}, pid ${process.pid}`);
      expect(await storedIds(backend(), schema)).toEqual([]);
      await second.commit({ puts: [row(3)], deletes: [] });
      await Promise.all([first.close(), second.close()]);
      expect(await storedIds(backend(), schema)).toEqual(['sch_3']);
    });

    it('a holder on this machine whose process has ended is taken over at once, lease or not', async () => {
      const schema = schemaOf();
      const first = storageOn(schema);
      await first.open();
      await first.close();
      const ended = spawnSync(process.execPath, ['-e', '']).pid;
      await run(
        backend().admin,
        `update "${schema}".storage_owner set token = 'gone', holder = $1::json, expires_at = now() + interval '1 hour'`,
        [JSON.stringify({ host: hostname(), pid: ended, applicationName: 'agent-schedule', backendPid: 1 })],
      );
      const second = storageOn(schema);
      expect(await second.open()).toEqual({ tasks: [], nextTaskNumber: 1 });
      await second.close();
    });

    it("a fenced storage (the cluster's) takes no part: it opens beside a plain one and leaves the owner row as it is", async () => {
      const schema = schemaOf();
      const plain = storageOn(schema);
      await plain.open();
      const before = await run(backend().admin, `select token, holder::text as holder from "${schema}".storage_owner`);
      const fenced = postgresStorage({ pool: backend().pool, schema, fence: { hostId: 'a', epochs: () => new Map() } });
      await fenced.open();
      await fenced.close();
      expect((await run(backend().admin, `select token, holder::text as holder from "${schema}".storage_owner`)).rows).toEqual(before.rows);
      await plain.close();
    });
  });
}
