// The PostgreSQL-backed Sessions against a real server (`npm run test:postgres`; PG_TEST_URL,
// default postgres://postgres@127.0.0.1:5432/test): the shared suite, with the Host opening its
// own pool from the URL as DATABASE_URL makes it do, two controllers on separate pools
// delivering into one Session at the same time, and `npm start`'s Host (host/main.ts) with
// DATABASE_URL logging where it keeps its data and delivering into the transcript table. Each
// test uses its own schema, dropped after it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FileSessions } from '../../host/sessions/fileSessions.ts';
import { createPostgresSessions } from '../../host/sessions/postgresSessions.ts';
import { createTranscriptTables } from '../../host/sessions/postgresTranscripts.ts';
import { randomSchema, run, SERVER_URL, serverPool } from '../storage/postgresHarness.ts';
import { usePostgresServer } from '../support/postgresServer.ts';
import { describePostgresSessions } from './postgresSessions.ts';

const { admin, schemas } = usePostgresServer();

describePostgresSessions('the server', () => ({
  pool: admin,
  schemas,
  hostDatabase: (schema) => ({ url: SERVER_URL, schema }),
}));

describe('PostgreSQL-backed Sessions on the server: two processes at once', () => {
  it('concurrent deliveries of the same reminders through two pools append each reminder once', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    await createTranscriptTables(admin, schema);
    const pools = [serverPool('agent-schedule-test-replica-a'), serverPool('agent-schedule-test-replica-b')];
    const replicas: FileSessions[] = pools.map((pool) =>
      createPostgresSessions({ pool, schema, now: () => Date.parse('2030-01-07T08:00:00.000Z') }),
    );
    try {
      const keys = Array.from({ length: 20 }, (_, i) => `sch_${i + 1}@2030-01-07T08:00:00.000Z`);
      /** Delivers every key through one replica, retrying a refused flush as the scheduler does. */
      const deliverAll = async (sessions: FileSessions): Promise<string[]> => {
        const ids: string[] = [];
        for (const key of keys) {
          for (let attempt = 0; ; attempt++) {
            const agent = await sessions.resolveAgent('shared');
            const { messageId } = agent.followup(
              { role: 'user', producer: 'schedule', text: `reminder ${key}` },
              { idempotencyKeys: [key] },
            );
            try {
              await agent.flush();
              ids.push(messageId);
              break;
            } catch (error) {
              if (attempt > 50) throw error;
            }
          }
        }
        return ids;
      };
      const [a, b] = await Promise.all(replicas.map(deliverAll));
      // Both processes got the same message id for each reminder, and each reminder is in the transcript once.
      expect(a).toEqual(b);
      const stored = await run(
        admin,
        `select seq, message_id, idempotency_keys from "${schema}".host_transcript_messages where session_id = 'shared' order by seq`,
      );
      expect(stored.rows.map((r) => (r.idempotency_keys as string[])[0])).toEqual(keys);
      expect(stored.rows.map((r) => Number(r.seq))).toEqual(keys.map((_, i) => i + 1));
      expect(new Set(stored.rows.map((r) => r.message_id)).size).toBe(keys.length);
    } finally {
      for (const sessions of replicas) await sessions.close();
      for (const pool of pools) await pool.end();
    }
  });
});

describe('npm start with DATABASE_URL', () => {
  it('logs that it keeps the schedule and transcripts in PostgreSQL and delivers into the transcript table', async () => {
    const schema = randomSchema();
    schemas.push(schema);
    const url = new URL(SERVER_URL);
    url.password = 'not-logged';
    const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: {
        ...process.env,
        PORT: '0',
        HOST: '',
        DATABASE_URL: url.href,
        DATABASE_SCHEMA: schema,
        SCHEDULE_TEST_CLOCK: '2030-01-07T08:00:00Z',
        LOG_FORMAT: '',
        LOG_LEVEL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    let out = '';
    const lines = () =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const waitFor = (test: (line: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((found, failed) => {
        const check = () => {
          const hit = lines().find(test);
          if (hit !== undefined) found(hit);
          else if (child.exitCode !== null) failed(new Error(`the Host exited:\n${out}`));
        };
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          check();
        });
        void exited.then(check);
      });
    try {
      const started = await waitFor((line) => String(line.msg).startsWith('agent-schedule Host listening on'));
      url.password = '***';
      expect(started).toMatchObject({ level: 'info', storage: 'postgresql', database: url.href, schema });
      expect(started).not.toHaveProperty('dataDir');
      expect(out).not.toContain('not-logged');
      const hostUrl = String(started.url);
      const post = (path: string, body: unknown) =>
        fetch(`${hostUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post('/api/sessions/demo/tools/schedule_create', { title: 'Tea', prompt: 'tea', after_seconds: 60 })).status).toBe(200);
      expect((await post('/api/test/clock', { advanceMs: 60_000 })).status).toBe(200);
      const stored = await run(
        admin,
        `select message_id, role from "${schema}".host_transcript_messages where session_id = 'demo' order by seq`,
      );
      expect(stored.rows).toEqual([
        { message_id: 'msg-1', role: 'user' },
        { message_id: 'msg-1.r1', role: 'assistant' },
      ]);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
