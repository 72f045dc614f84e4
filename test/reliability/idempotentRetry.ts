// A client that gives up on calls and sends them again (SPEC §15): the reference Host as a real
// process, and `creates` schedule_create calls over HTTP, each with its own `Idempotency-Key`,
// each attempt abandoned after a short random timeout and sent again with the same key until it
// gets an answer that is not `persistence_uncertain`. The server goes on with an abandoned
// attempt, so most first attempts land while their client has already left. With a database,
// the Host keeps its schedule on PostgreSQL, and optionally another connection terminates the
// Host's connections every few milliseconds during blips of 400 ms each second, so that writes also come back uncertain
// after they landed. At the end every Session's tasks are listed: there must be exactly one task
// per create. `tsx test/reliability/idempotentRetry.ts [creates] [database url] [kill]` runs it alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHostProcess } from './hostProcess.ts';

export interface IdempotentRetryOptions {
  readonly creates: number;
  /** Calls in flight at once. */
  readonly concurrency?: number;
  /** Keep the schedule on PostgreSQL at this URL (in a schema of its own) instead of files. */
  readonly databaseUrl?: string;
  /** With a database: terminate the Host's connections at random intervals of this many ms. */
  readonly killEveryMs?: readonly [number, number];
  readonly seed?: number;
}

export interface IdempotentRetryFigures {
  readonly creates: number;
  readonly attempts: number;
  readonly timedOut: number;
  readonly uncertain: number;
  readonly kills: number;
  readonly tasks: number;
  /** Creates with no task, and with more than one. */
  readonly missing: number;
  readonly twice: number;
}

const SESSIONS = 20;

/** With a database: connections are killed during the first `BLIP_MS` of every `BLIP_CYCLE_MS`. */
const BLIP_MS = 400;
const BLIP_CYCLE_MS = 1_000;

/** A small deterministic generator, so a run can be repeated. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

/** Runs the check; resolves with what it saw (the caller judges `missing` and `twice`). */
export async function runIdempotentRetry(options: IdempotentRetryOptions): Promise<IdempotentRetryFigures> {
  const next = random(options.seed ?? 1);
  const dataDir = mkdtempSync(join(tmpdir(), 'idempotent-retry-'));
  const schema = `retry_${process.pid}_${Date.now() % 1_000_000}`;
  const database = options.databaseUrl;
  const host = await startHostProcess({
    dataDir,
    env: database === undefined ? {} : { DATABASE_URL: database, DATABASE_SCHEMA: schema },
  });
  let attempts = 0;
  let timedOut = 0;
  let uncertain = 0;
  let kills = 0;
  const killer =
    database === undefined || options.killEveryMs === undefined ? undefined : await startKilling(database, options.killEveryMs, next);
  try {
    const queue = Array.from({ length: options.creates }, (_, i) => i);
    const worker = async (): Promise<void> => {
      for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
        const session = `retry-${i % SESSIONS}`;
        const body = JSON.stringify({ title: `create ${i}`, prompt: `reminder ${i}`, after_seconds: 3600 + i });
        for (;;) {
          attempts++;
          try {
            const response = await fetch(`${host.url}/api/sessions/${session}/tools/schedule_create`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'Idempotency-Key': `create-${i}` },
              body,
              signal: AbortSignal.timeout(1 + Math.floor(next() * 60)),
            });
            const answer = (await response.json()) as { code?: string };
            if (answer.code === 'persistence_uncertain') {
              uncertain++;
              continue;
            }
            if (answer.code !== undefined) throw new Error(`create ${i} was refused: ${JSON.stringify(answer)}`);
            break;
          } catch (error) {
            // A timeout, or a connection the server closed on an abandoned request: sent again, as a client would.
            const timeout = error instanceof DOMException && error.name === 'TimeoutError';
            if (!timeout && !(error instanceof TypeError && error.message === 'fetch failed')) throw error;
            timedOut++;
          }
        }
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
    kills = (await killer?.stop()) ?? 0;
    // Attempts the client abandoned may still be queued at the Host: the test clock's step waits for them.
    await host.api('POST', '/api/test/clock', { advanceMs: 0 });
    const titles = new Map<string, number>();
    for (let s = 0; s < SESSIONS; s++) {
      const listed = await host.api('GET', `/api/sessions/retry-${s}/tasks`);
      for (const task of listed.body as Array<{ title: string }>) titles.set(task.title, (titles.get(task.title) ?? 0) + 1);
    }
    let missing = 0;
    let twice = 0;
    for (let i = 0; i < options.creates; i++) {
      const n = titles.get(`create ${i}`) ?? 0;
      if (n === 0) missing++;
      if (n > 1) twice++;
    }
    const tasks = [...titles.values()].reduce((a, b) => a + b, 0);
    return { creates: options.creates, attempts, timedOut, uncertain, kills, tasks, missing, twice };
  } finally {
    await killer?.stop();
    host.kill();
    await host.exited;
    rmSync(dataDir, { recursive: true, force: true });
    if (database !== undefined) await dropSchema(database, schema);
  }
}

/** Terminates the Host's storage connections (by application name) at random intervals until stopped; `stop` answers how many. */
async function startKilling(url: string, [min, max]: readonly [number, number], next: () => number): Promise<{ stop(): Promise<number> }> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url, application_name: 'idempotent-retry killer' });
  admin.on('error', () => undefined);
  await admin.connect();
  let stopped = false;
  let count = 0;
  const started = Date.now();
  const loop = (async () => {
    while (!stopped) {
      // Blips of killing, then a quiet spell in which the Host can finish what was retried.
      const phase = (Date.now() - started) % BLIP_CYCLE_MS;
      if (phase >= BLIP_MS) {
        await new Promise((resolve) => setTimeout(resolve, BLIP_CYCLE_MS - phase));
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, min + Math.floor(next() * (max - min + 1))));
      const result = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and application_name like 'agent-schedule%'`,
      );
      count += result.rowCount ?? 0;
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await admin.end();
      return count;
    },
  };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url });
  admin.on('error', () => undefined);
  await admin.connect();
  await admin.query(`drop schema if exists "${schema}" cascade`);
  await admin.end();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const creates = Number(process.argv[2] ?? 1000);
  const databaseUrl = process.argv[3] || undefined;
  const kill = process.argv[4] === 'kill';
  const figures = await runIdempotentRetry({
    creates,
    ...(databaseUrl === undefined ? {} : { databaseUrl }),
    ...(kill ? { killEveryMs: [2, 20] as const } : {}),
  });
  console.log(JSON.stringify({ check: 'idempotent retries', database: databaseUrl !== undefined, kill, ...figures }));
  if (figures.missing > 0 || figures.twice > 0 || figures.tasks !== creates) process.exit(1);
}
