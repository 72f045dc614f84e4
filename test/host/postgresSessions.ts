// What the PostgreSQL-backed Sessions must do on any PostgreSQL (PGlite in `npm test`, the real
// server in `npm run test:postgres`): append and read back in order, drop a redelivery by its
// idempotency key across two controllers on one database (two Host processes), refuse a flush
// that raced another process's append and recover on the retry, narrow a batch to the reminders
// no message holds, write a message appended under a shard lease only while that lease is the
// Host's at its epoch; and a Host on the database delivering a reminder created over HTTP into the
// transcript table on its test clock, and delivering nothing into it once the Session's shard
// lease has moved to another Host while this one still counts it held. Each test uses a fresh
// schema, dropped after it.
import { readdir } from 'node:fs/promises';
import type { HostDatabaseOptions } from '../../host/database.ts';
import type { FileSessions } from '../../host/sessions/fileSessions.ts';
import { createPostgresSessions } from '../../host/sessions/postgresSessions.ts';
import { createTranscriptTables, TranscriptChangedError } from '../../host/sessions/postgresTranscripts.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { LeaseLostError } from '../../src/adapters/postgres/fence.ts';
import { shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { randomSchema, run } from '../storage/postgresHarness.ts';
import { AT, batch, keyOf, NOW, reminder } from './reminderMessages.ts';
import { START, startTestHost, type TestHost } from './support.ts';

export interface PostgresSessionsContext {
  /** The database the controllers use. */
  readonly pool: SqlPool;
  /** Schemas pushed here are dropped after each test. */
  readonly schemas: string[];
  /** How a Host reaches the database, for a schema. */
  readonly hostDatabase: (schema: string) => HostDatabaseOptions;
}

export function describePostgresSessions(name: string, context: () => PostgresSessionsContext): void {
  describe(`PostgreSQL-backed Sessions on ${name}`, () => {
    let schema: string;
    const controllers: FileSessions[] = [];
    /** A controller on the test's schema: one Host process. */
    const replica = (demoAgent = true): FileSessions => {
      const sessions = createPostgresSessions({ pool: context().pool, schema, now: () => NOW, demoAgent });
      controllers.push(sessions);
      return sessions;
    };
    const rows = async (sessionId: string) =>
      (
        await run(
          context().pool,
          `select seq, message_id, role, idempotency_keys from "${schema}".host_transcript_messages where session_id = $1 order by seq`,
          [sessionId],
        )
      ).rows.map((r) => [Number(r.seq), r.message_id, r.role, r.idempotency_keys ?? null]);
    const storedSessions = async () =>
      (await run(context().pool, `select session_id from "${schema}".host_transcript_sessions order by session_id`)).rows.map(
        (r) => r.session_id,
      );
    const keyRows = async (sessionId: string) =>
      (
        await run(
          context().pool,
          `select idempotency_key, message_id from "${schema}".host_transcript_keys where session_id = $1 order by idempotency_key`,
          [sessionId],
        )
      ).rows.map((r) => [r.idempotency_key, r.message_id]);

    beforeEach(async () => {
      schema = randomSchema();
      context().schemas.push(schema);
      await createTranscriptTables(context().pool, schema);
    });
    afterEach(async () => {
      for (const sessions of controllers.splice(0)) await sessions.close();
    });

    it('creating the tables again is a no-op; the schedule schema is migrated beside them', async () => {
      await createTranscriptTables(context().pool, schema);
      const tables = await run(
        context().pool,
        `select table_name from information_schema.tables where table_schema = $1 order by table_name`,
        [schema],
      );
      expect(tables.rows.map((r) => r.table_name)).toEqual(
        expect.arrayContaining(['host_transcript_keys', 'host_transcript_messages', 'host_transcript_sessions', 'tasks']),
      );
    });

    it('followup only fills the inbox; flush appends the message and the demo agent answer; read back in order', async () => {
      const sessions = replica();
      const agent = await sessions.resolveAgent('demo');
      expect(agent.followup(reminder('sch_1', 'first'), { idempotencyKeys: [keyOf('sch_1')] })).toEqual({ messageId: 'msg-1' });
      expect(await sessions.transcript('demo')).toEqual([]);
      await agent.flush();
      const second = await sessions.resolveAgent('demo');
      expect(second.followup(reminder('sch_2', 'second'), { idempotencyKeys: [keyOf('sch_2')] })).toEqual({ messageId: 'msg-2' });
      await second.flush();
      const delivered = [
        ['msg-1', 'sch_1', 'first'],
        ['msg-2', 'sch_2', 'second'],
      ] as const;
      expect(await sessions.transcript('demo')).toEqual(
        delivered.flatMap(([messageId, id, prompt]) => [
          { messageId, role: 'user', producer: 'schedule', text: reminder(id, prompt).text, idempotencyKeys: [keyOf(id)], at: AT },
          { messageId: `${messageId}.r1`, role: 'assistant', producer: 'demo-agent', text: `reminder received: ${prompt}`, at: AT },
        ]),
      );
      expect(await rows('demo')).toEqual([
        [1, 'msg-1', 'user', [keyOf('sch_1')]],
        [2, 'msg-1.r1', 'assistant', null],
        [3, 'msg-2', 'user', [keyOf('sch_2')]],
        [4, 'msg-2.r1', 'assistant', null],
      ]);
      expect(await sessions.list()).toEqual(['demo']);
      expect(await sessions.transcript('unknown')).toEqual([]);
      expect(await sessions.transcript('../etc')).toEqual([]);
    });

    it('tells subscribers what each flush made durable', async () => {
      const sessions = replica(false);
      const seen: Array<[string, string[]]> = [];
      sessions.subscribe(({ sessionId, lines }) => seen.push([sessionId, lines.map((l) => l.messageId)]));
      const agent = await sessions.resolveAgent('s1');
      agent.followup(reminder('sch_1', 'a'), { idempotencyKeys: [keyOf('sch_1')] });
      agent.followup(reminder('sch_2', 'b'), { idempotencyKeys: [keyOf('sch_2')] });
      await agent.flush();
      await agent.flush();
      expect(seen).toEqual([['s1', ['msg-1', 'msg-2']]]);
    });

    it('a redelivery through a second controller (another Host process) is answered with the first one’s message id and not appended', async () => {
      const first = replica();
      const a = await first.resolveAgent('demo');
      expect(a.followup(reminder('sch_1', 'tea'), { idempotencyKeys: [keyOf('sch_1')] }).messageId).toBe('msg-1');
      await a.flush();
      const second = replica();
      const b = await second.resolveAgent('demo');
      expect(b.followup(reminder('sch_1', 'tea'), { idempotencyKeys: [keyOf('sch_1')] })).toEqual({ messageId: 'msg-1' });
      // A new reminder continues the numbering the first process left.
      expect(b.followup(reminder('sch_2', 'cake'), { idempotencyKeys: [keyOf('sch_2')] })).toEqual({ messageId: 'msg-2' });
      await b.flush();
      expect(await rows('demo')).toEqual([
        [1, 'msg-1', 'user', [keyOf('sch_1')]],
        [2, 'msg-1.r1', 'assistant', null],
        [3, 'msg-2', 'user', [keyOf('sch_2')]],
        [4, 'msg-2.r1', 'assistant', null],
      ]);
      // The first process, resolving the Session again, knows the second's message.
      const again = await first.resolveAgent('demo');
      expect(again.followup(reminder('sch_2', 'cake'), { idempotencyKeys: [keyOf('sch_2')] })).toEqual({ messageId: 'msg-2' });
      expect(again.followup(reminder('sch_3', 'pie'), { idempotencyKeys: [keyOf('sch_3')] })).toEqual({ messageId: 'msg-3' });
      await again.flush();
      expect((await second.transcript('demo')).map((l) => l.messageId)).toEqual([
        'msg-1',
        'msg-1.r1',
        'msg-2',
        'msg-2.r1',
        'msg-3',
        'msg-3.r1',
      ]);
      expect(await keyRows('demo')).toEqual([
        [keyOf('sch_1'), 'msg-1'],
        [keyOf('sch_2'), 'msg-2'],
        [keyOf('sch_3'), 'msg-3'],
      ]);
    });

    it('a flush that raced another process’s append writes nothing and rejects; the retry drops the redelivery', async () => {
      const first = replica();
      const second = replica();
      const a = await first.resolveAgent('demo');
      const b = await second.resolveAgent('demo');
      expect(a.followup(reminder('sch_1', 'tea'), { idempotencyKeys: [keyOf('sch_1')] }).messageId).toBe('msg-1');
      expect(b.followup(reminder('sch_1', 'tea'), { idempotencyKeys: [keyOf('sch_1')] }).messageId).toBe('msg-1');
      await a.flush();
      await expect(b.flush()).rejects.toBeInstanceOf(TranscriptChangedError);
      expect(() => b.followup(reminder('sch_1', 'tea'), { idempotencyKeys: [keyOf('sch_1')] })).toThrow(/failed flush/);
      const retry = await second.resolveAgent('demo');
      expect(retry.followup(reminder('sch_1', 'tea'), { idempotencyKeys: [keyOf('sch_1')] })).toEqual({ messageId: 'msg-1' });
      await retry.flush();
      expect(await rows('demo')).toEqual([
        [1, 'msg-1', 'user', [keyOf('sch_1')]],
        [2, 'msg-1.r1', 'assistant', null],
      ]);
    });

    it('a batch repeating a reminder another process holds is narrowed to the new ones; all held by several messages gives a note', async () => {
      const first = replica(false);
      const a = await first.resolveAgent('demo');
      a.followup(batch(['sch_1']), { idempotencyKeys: [keyOf('sch_1')] });
      await a.flush();
      const second = replica(false);
      const b = await second.resolveAgent('demo');
      expect(b.followup(batch(['sch_1', 'sch_2']), { idempotencyKeys: [keyOf('sch_1'), keyOf('sch_2')] })).toEqual({ messageId: 'msg-2' });
      await b.flush();
      const c = await first.resolveAgent('demo');
      expect(c.followup(batch(['sch_1', 'sch_2']), { idempotencyKeys: [keyOf('sch_1'), keyOf('sch_2')] })).toEqual({ messageId: 'msg-3' });
      await c.flush();
      const lines = await second.transcript('demo');
      expect(lines.map((l) => [l.messageId, l.producer, l.idempotencyKeys ?? null])).toEqual([
        ['msg-1', 'schedule', [keyOf('sch_1')]],
        ['msg-2', 'schedule', [keyOf('sch_2')]],
        ['msg-3', 'session', null],
      ]);
      expect(lines[1]?.text).toBe(batch(['sch_2']).text);
      expect(lines[2]?.text).toBe('Redelivered reminders already held by msg-1, msg-2.');
    });

    it('Sessions are kept apart; a NUL in a prompt reaches the transcript as U+FFFD', async () => {
      const sessions = replica();
      const a = await sessions.resolveAgent('a');
      a.followup(reminder('sch_1', 'x\u0000y'), { idempotencyKeys: [keyOf('sch_1')] });
      await a.flush();
      const b = await sessions.resolveAgent('b');
      expect(b.followup(reminder('sch_1', 'x\u0000y'), { idempotencyKeys: [keyOf('sch_1')] }).messageId).toBe('msg-1');
      await b.flush();
      expect(await sessions.list()).toEqual(['a', 'b']);
      expect((await sessions.transcript('b')).map((l) => l.text)[1]).toBe('reminder received: x\uFFFDy');
      await expect(sessions.resolveAgent('../x')).rejects.toThrow(/not a Session id/);
    });

    it('a flush under a shard lease that moved to another Host, or to a later epoch, writes nothing and rejects', async () => {
      const leases = shardLeases({ pool: context().pool, schema });
      const shard = shardOf('demo');
      const taken = (await leases.acquire({ hostId: 'host-a', leaseMs: 600_000, want: 256 })).find((l) => l.shard === shard);
      const lease = { hostId: 'host-a', shard, epoch: taken?.epoch ?? -1 };
      const sessions = replica();
      const held = await sessions.resolveAgent('demo');
      held.followup(reminder('sch_1', 'tea'), { idempotencyKeys: [keyOf('sch_1')], lease });
      await held.flush();
      const before = await rows('demo');
      expect(before).toHaveLength(2);

      await leases.release('host-a', [shard]);
      const moved = await leases.acquire({ hostId: 'host-b', leaseMs: 600_000, want: 256 });
      expect(moved).toEqual([expect.objectContaining({ shard, epoch: lease.epoch + 1 })]);
      const stale = await sessions.resolveAgent('demo');
      stale.followup(reminder('sch_2', 'cake'), { idempotencyKeys: [keyOf('sch_2')], lease });
      const refused = await stale.flush().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(LeaseLostError);
      expect((refused as Error).message).toMatch(/host "host-b" holds it now, at epoch/);
      expect(await rows('demo')).toEqual(before);

      // Back at this Host, but at a later epoch: a message of the earlier term is still refused.
      await leases.release('host-b', [shard]);
      await leases.acquire({ hostId: 'host-a', leaseMs: 600_000, want: 256 });
      const earlier = await sessions.resolveAgent('demo');
      earlier.followup(reminder('sch_2', 'cake'), { idempotencyKeys: [keyOf('sch_2')], lease });
      await expect(earlier.flush()).rejects.toThrow(/at epoch \d+ was lost: the shard is at epoch/);
      // A Session the refused flush would have created is not there either.
      const fresh = await sessions.resolveAgent('other');
      const never = { hostId: 'host-c', shard: shardOf('other'), epoch: 1 };
      fresh.followup(reminder('sch_3', 'pie'), { idempotencyKeys: [keyOf('sch_3')], lease: never });
      await expect(fresh.flush()).rejects.toBeInstanceOf(LeaseLostError);
      expect(await rows('demo')).toEqual(before);
      expect(await sessions.list()).toEqual(['demo']);

      const current = { ...lease, epoch: lease.epoch + 2 };
      const retry = await sessions.resolveAgent('demo');
      expect(retry.followup(reminder('sch_2', 'cake'), { idempotencyKeys: [keyOf('sch_2')], lease: current })).toEqual({
        messageId: 'msg-2',
      });
      await retry.flush();
      expect((await rows('demo')).map((row) => row[1])).toEqual(['msg-1', 'msg-1.r1', 'msg-2', 'msg-2.r1']);
    });

    describe('a Host on the database', () => {
      let t: TestHost | undefined;
      afterEach(async () => {
        await t?.close();
        t = undefined;
      });

      it('delivers a reminder created over HTTP into the transcript table on its test clock, and a restarted Host keeps it', async () => {
        t = await startTestHost({ database: context().hostDatabase(schema) });
        const { body: view } = await t.create('demo', { title: 'Tea', prompt: 'the tea is ready', after_seconds: 90 });
        await t.advance(89_000);
        expect(await rows('demo')).toEqual([]);
        await t.advance(1_000);
        expect(await rows('demo')).toEqual([
          [1, 'msg-1', 'user', [`${view.id}@2030-01-07T08:01:30.000Z`]],
          [2, 'msg-1.r1', 'assistant', null],
        ]);
        const at = await run(
          context().pool,
          `select created_at from "${schema}".host_transcript_messages where session_id = 'demo' order by seq`,
        );
        expect(at.rows.map((r) => new Date(r.created_at as string).toISOString())).toEqual([
          '2030-01-07T08:01:30.000Z',
          '2030-01-07T08:01:30.000Z',
        ]);
        const transcript = (await t.get<Array<{ messageId: string; text: string }>>('/api/sessions/demo/transcript')).body;
        expect(transcript.map((l) => l.messageId)).toEqual(['msg-1', 'msg-1.r1']);
        expect(transcript[1]?.text).toBe('reminder received: the tea is ready');
        // The schedule is in the database too: nothing was written to the data folder.
        expect(await readdir(t.dataDir)).toEqual([]);
        const tasks = await run(context().pool, `select id, session_id, status from "${schema}".tasks`);
        expect(tasks.rows).toEqual([{ id: view.id, session_id: 'demo', status: 'inactive' }]);
        await t.close();
        t = await startTestHost({ database: context().hostDatabase(schema), testClock: START });
        const catalog = (await t.get<Array<{ lastDelivery?: { messageId: string } }>>('/api/catalog')).body;
        expect(catalog.map((entry) => entry.lastDelivery?.messageId)).toEqual(['msg-1']);
        expect((await t.get<unknown[]>('/api/sessions/demo/transcript')).body).toHaveLength(2);
      });

      it('delivers nothing into the transcript once the Session’s shard lease moved to another Host that this Host has not noticed yet', async () => {
        // A long lease: by its own clock this Host holds its shards for the whole test, as a Host
        // that stalled would believe when it runs again.
        t = await startTestHost({ database: { ...context().hostDatabase(schema), leaseMs: 600_000 } });
        const { body: view } = await t.create('demo', { title: 'Tea', prompt: 'the tea is ready', after_seconds: 90 });
        await run(
          context().pool,
          `update "${schema}".shard_leases set owner = 'host-b', epoch = epoch + 1, expires_at = now() + interval '1 hour' where shard = $1`,
          [shardOf('demo')],
        );
        await t.advance(90_000);
        expect(await rows('demo')).toEqual([]);
        expect(await storedSessions()).toEqual([]);
        const catalog = (await t.get<Array<{ record: { id: string }; failure?: { stage: string; message: string } }>>('/api/catalog')).body;
        expect(catalog.find((entry) => entry.record.id === view.id)?.failure).toMatchObject({
          stage: 'flush',
          message: expect.stringMatching(/host "host-b" holds it now/),
        });
      });
    });
  });
}
