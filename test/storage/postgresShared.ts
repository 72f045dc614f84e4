// Behaviour of the PostgreSQL storage beyond the conformance suite, registered for PGlite (in
// `npm test`) and for the real server (`npm run test:postgres`): migrations applied once and
// recorded, a newer schema refused, corrupt rows refused naming the row, text the codec accepts
// kept exactly, ids held by another Session refused, the task-number sequence, the query columns,
// the failure-status columns, an open scoped to some shards, and the service running on the storage
// across a restart (a failure status and a pause note included).

import { sessionGroupId } from '../../machines/events.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { MIGRATIONS, migrate, SCHEMA_VERSION } from '../../src/adapters/postgres/migrations.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { row } from './fixtures.ts';
import { randomSchema, run, seedRows } from './postgresHarness.ts';
import { sessionIn } from './postgresLeases.ts';

/** The pools of one backend: `pool` for storages, `admin` for reading and writing behind their back. */
export interface PostgresBackend {
  readonly pool: SqlPool;
  readonly admin: SqlPool;
  readonly schemas: string[];
}

const codeAndMessage = async (promise: Promise<unknown>): Promise<{ code: string; message: string }> => {
  try {
    await promise;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    return { code: e.code ?? 'untyped', message: e.message ?? String(error) };
  }
  return { code: 'resolved', message: '' };
};

/** Registers the shared behaviour tests for one backend. */
export function describePostgresBehaviour(name: string, backend: () => PostgresBackend): void {
  const schemaOf = () => {
    const schema = randomSchema();
    backend().schemas.push(schema);
    return schema;
  };
  const storageOn = (schema: string) => postgresStorage({ pool: backend().pool, schema });

  describe(`postgresStorage on ${name}: schema and rows`, () => {
    it('two storages opening together on a fresh schema migrate it once; one opens, the other is refused storage_locked', async () => {
      const schema = schemaOf();
      const [a, b] = [storageOn(schema), storageOn(schema)];
      const outcomes = await Promise.allSettled([a.open(), b.open()]);
      expect(outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value)).toEqual([{ tasks: [], nextTaskNumber: 1 }]);
      expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o.reason as { code?: string }).code)).toEqual(['storage_locked']);
      const recorded = await run(backend().admin, `select version, name from "${schema}".schema_migrations order by version`);
      expect(recorded.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
      await Promise.all([a.close(), b.close()]);
      const client = await backend().admin.connect();
      try {
        expect(await migrate(client, schema)).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: [] });
      } finally {
        client.release();
      }
    });

    it('a schema newer than the code refuses to open with a clear error and is left as it was', async () => {
      const schema = schemaOf();
      await seedRows(backend().admin, schema, { version: 1, tasks: [row(1)] });
      await run(backend().admin, `insert into "${schema}".schema_migrations (version, name) values ($1, 'from the future')`, [
        SCHEMA_VERSION + 1,
      ]);
      const refused = await codeAndMessage(storageOn(schema).open());
      expect(refused.code).toBe('corrupt_schedule_log');
      expect(refused.message).toContain(`is at version ${SCHEMA_VERSION + 1}, newer than this agent-schedule knows (${SCHEMA_VERSION})`);
      expect((await run(backend().admin, `select count(*)::int as n from "${schema}".tasks`)).rows).toEqual([{ n: 1 }]);
    });

    it('a corrupt row refuses the open with corrupt_schedule_log naming the row', async () => {
      const schema = schemaOf();
      const bad = { ...row(3), record: { ...row(3).record, everySeconds: 1 } };
      await seedRows(backend().admin, schema, { version: 1, tasks: [row(1), bad] });
      const refused = await codeAndMessage(storageOn(schema).open());
      expect(refused.code).toBe('corrupt_schedule_log');
      expect(refused.message).toContain(`PostgreSQL table ${schema}.tasks: row "sch_3"`);
      expect(refused.message).toContain('everySeconds');
    });

    it('a row whose query columns disagree with it refuses the open, naming the row and the column', async () => {
      const schema = schemaOf();
      await seedRows(backend().admin, schema, { version: 1, tasks: [row(1), row(2)] });
      await run(backend().admin, `update "${schema}".tasks set status = 'inactive' where id = 'sch_2'`);
      const status = await codeAndMessage(storageOn(schema).open());
      expect(status).toMatchObject({ code: 'corrupt_schedule_log' });
      expect(status.message).toContain('row "sch_2"');
      expect(status.message).toContain('the status column is "inactive"');
      await run(backend().admin, `update "${schema}".tasks set status = 'active', id = 'sch_9' where id = 'sch_2'`);
      const id = await codeAndMessage(storageOn(schema).open());
      expect(id.message).toContain(`row "sch_9"`);
      expect(id.message).toContain(`the row's id column is "sch_9"`);
    });

    it('keeps text exactly, NUL and unpaired surrogates included; a Session id text cannot hold is refused', async () => {
      const schema = schemaOf();
      const storage = storageOn(schema);
      await storage.open();
      const odd: TaskRow = { ...row(1), record: { ...row(1).record, prompt: 'a\u0000b \ud800 c \udc00 "quoted" \\ é 🙂' } };
      await storage.commit({ puts: [odd], deletes: [] });
      const badSession = { ...row(2), sessionId: 's\u0000' };
      expect(await codeAndMessage(storage.commit({ puts: [badSession], deletes: [] }))).toMatchObject({ code: 'internal_error' });
      await storage.close();
      const again = await storageOn(schema).open();
      expect(again.tasks).toEqual([odd]);
    });

    it('a put of an id held by another Session is refused and writes nothing of its batch', async () => {
      const schema = schemaOf();
      const storage = storageOn(schema);
      await storage.open();
      await storage.commit({ puts: [row(1, 'every', 'alice')], deletes: [] });
      const refused = await codeAndMessage(storage.commit({ puts: [row(2, 'every', 'bob'), row(1, 'every', 'bob')], deletes: [] }));
      expect(refused.code).toBe('internal_error');
      expect(refused.message).toContain('task id "sch_1" is already held by another Session');
      await storage.commit({ puts: [{ ...row(1, 'every', 'alice'), status: 'inactive' }], deletes: [] });
      await storage.close();
      expect((await storageOn(schema).open()).tasks).toEqual([{ ...row(1, 'every', 'alice'), status: 'inactive' }]);
    });

    it('the query columns hold the Session, its shard, status, next target and a version that grows per write', async () => {
      const schema = schemaOf();
      const storage = storageOn(schema);
      await storage.open();
      const first = row(1, 'daily', 'session-α');
      await storage.commit({ puts: [first, row(2, 'every', 'other')], deletes: [] });
      const moved = { ...first, status: 'inactive' as const, record: { ...first.record, scheduledAt: '2031-02-03T04:05:06.007Z' } };
      await storage.commit({ puts: [moved], deletes: [] });
      await storage.close();
      const columns = await run(
        backend().admin,
        `select id, session_id, shard, status, to_char(next_target at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as next_target, version::int as version
         from "${schema}".tasks order by position`,
      );
      expect(columns.rows).toEqual([
        {
          id: 'sch_1',
          session_id: 'session-α',
          shard: shardOf('session-α'),
          status: 'inactive',
          next_target: '2031-02-03T04:05:06.007Z',
          version: 2,
        },
        { id: 'sch_2', session_id: 'other', shard: shardOf('other'), status: 'active', next_target: row(2).record.scheduledAt, version: 1 },
      ]);
      expect(`sessions:${shardOf('session-α')}`).toBe(sessionGroupId('session-α'));
    });

    it('a storage scoped to shards opens only their rows, in stored order; unscoped it opens them all', async () => {
      const schema = schemaOf();
      const writer = storageOn(schema);
      await writer.open();
      const rows = [
        row(1, 'every', sessionIn(5)),
        row(2, 'daily', sessionIn(7)),
        row(3, 'cron', sessionIn(200)),
        row(4, 'at', sessionIn(5)),
      ];
      await writer.commit({ puts: rows, deletes: [], nextTaskNumber: 5 });
      await writer.close();

      const scoped = postgresStorage({ pool: backend().pool, schema, shards: [200, 5] });
      expect(await scoped.open()).toEqual({ tasks: [rows[0], rows[2], rows[3]], nextTaskNumber: 5 });
      // Commits are not limited by the scope; the next open still reads only its shards.
      await scoped.commit({ puts: [row(5, 'every', sessionIn(9))], deletes: [], nextTaskNumber: 6 });
      await scoped.close();
      expect((await scoped.open()).tasks).toEqual([rows[0], rows[2], rows[3]]);
      await scoped.close();

      // Given as a function, the shards are asked at each open.
      let current: number[] = [7, 9];
      const following = postgresStorage({ pool: backend().pool, schema, shards: () => current });
      expect((await following.open()).tasks).toEqual([rows[1], row(5, 'every', sessionIn(9))]);
      await following.close();
      current = [];
      expect(await following.open()).toEqual({ tasks: [], nextTaskNumber: 6 });
      await following.close();

      const all = storageOn(schema);
      expect((await all.open()).tasks).toEqual([...rows, row(5, 'every', sessionIn(9))]);
      await all.close();

      expect(() => postgresStorage({ pool: backend().pool, schema, shards: [1, 256] })).toThrow(
        "A PostgreSQL storage's shards are a list of whole numbers 0-255, not [1,256].",
      );
      current = [1.5];
      expect(await codeAndMessage(following.open())).toEqual({
        code: 'internal_error',
        message: "A PostgreSQL storage's shards are a list of whole numbers 0-255, not [1.5].",
      });
    });

    it('task numbers come from the sequence: allocated ones are never handed out again, and the counter covers them', async () => {
      const schema = schemaOf();
      const a = storageOn(schema);
      await a.open();
      await a.commit({ puts: [row(1)], deletes: [], nextTaskNumber: 2 });
      const fromA = await a.allocateTaskNumbers(3);
      await a.close();
      const b = storageOn(schema);
      await b.open();
      const fromB = await b.allocateTaskNumbers(2);
      expect(fromA).toEqual([2, 3, 4]);
      expect(fromB).toEqual([5, 6]);
      // a counter below the sequence never moves it back
      await b.commit({ puts: [], deletes: [], nextTaskNumber: 3 });
      await b.close();
      expect((await storageOn(schema).open()).nextTaskNumber).toBe(7);
    });
  });

  describe(`postgresStorage on ${name}: under the service`, () => {
    it('a failure status and a pause note survive a restart of the service; the failure columns follow the row', async () => {
      const schema = schemaOf();
      const clock = createManualClock('2030-01-01T09:00:00Z');
      const sessions = createFakeSessions();
      const quiet = { warn: () => undefined, error: () => undefined };
      const open = () =>
        createScheduleService({ sessions, storage: postgresStorage({ pool: backend().pool, schema }), clock, logger: quiet });
      const failureColumns = async () =>
        (
          await run(
            backend().admin,
            `select id, failure_stage, failure_attempts,
               to_char(failed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as failed_at
             from "${schema}".tasks order by position`,
          )
        ).rows;
      const first = await open();
      await first.callTool('demo', 'schedule_create', { title: 'Call', prompt: 'Call back.', after_seconds: 60 });
      await first.callTool('demo', 'schedule_create', { title: 'Report', prompt: 'Send it.', every_seconds: 3600 });
      await first.remote.pause({ sessionId: 'demo', id: 'sch_2', note: 'Vendor outage' });
      sessions.failNext('demo', 'flush');
      await clock.advance(60_000);
      await first.whenIdle();
      expect(await failureColumns()).toEqual([
        { id: 'sch_1', failure_stage: 'flush', failure_attempts: 1, failed_at: '2030-01-01T09:01:00.000Z' },
        { id: 'sch_2', failure_stage: null, failure_attempts: null, failed_at: null },
      ]);
      await first.close();

      const second = await open();
      expect(await second.remote.get({ sessionId: 'demo', id: 'sch_1' })).toMatchObject({
        failure: { attempts: 1, stage: 'flush', message: 'fake Session demo: flush failed' },
      });
      expect(await second.remote.get({ sessionId: 'demo', id: 'sch_2' })).toMatchObject({ pauseNote: 'Vendor outage' });
      sessions.failNext('demo', 'flush');
      await clock.advance(0); // the restored task is tried again at once, and fails again
      await second.whenIdle();
      expect(await second.remote.get({ sessionId: 'demo', id: 'sch_1' })).toMatchObject({ failure: { attempts: 2 } });
      expect((await failureColumns())[0]).toMatchObject({ failure_stage: 'flush', failure_attempts: 2 });
      await clock.advance(5_000);
      await second.whenIdle();
      expect(await second.remote.get({ sessionId: 'demo', id: 'sch_1' })).not.toHaveProperty('failure');
      expect((await failureColumns())[0]).toEqual({ id: 'sch_1', failure_stage: null, failure_attempts: null, failed_at: null });
      await second.close();
    });

    it('a reminder created, delivered and recorded survives a restart of the service', async () => {
      const schema = schemaOf();
      const clock = createManualClock('2030-01-01T09:00:00Z');
      const sessions = createFakeSessions();
      const first = await createScheduleService({ sessions, storage: postgresStorage({ pool: backend().pool, schema }), clock });
      const created = await first.callTool('demo', 'schedule_create', { title: 'Stretch', prompt: 'Stand up.', every_seconds: 60 });
      expect(created).toMatchObject({ id: 'sch_1' });
      await clock.advance(60_000);
      await first.whenIdle();
      expect(sessions.messages('demo')).toHaveLength(1);
      await first.close();
      const second = await createScheduleService({ sessions, storage: postgresStorage({ pool: backend().pool, schema }), clock });
      const again = await second.remote.get({ sessionId: 'demo', id: 'sch_1' });
      expect(again).toMatchObject({
        record: { id: 'sch_1', scheduledAt: '2030-01-01T09:02:00.000Z' },
        lastDelivery: { scheduledAt: '2030-01-01T09:01:00.000Z' },
      });
      const next = await second.callTool('demo', 'schedule_create', { title: 'Other', prompt: 'p', after_seconds: 600 });
      expect(next).toMatchObject({ id: 'sch_2' });
      await second.close();
    });
  });
}
