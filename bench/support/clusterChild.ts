// One Host process of the cluster benchmark, compiled as every benchmark is (bench/support/
// clusterProcess.ts starts it from beside itself). It runs a schedule service — one Host of a cluster
// (`createScheduleService` over a storage the Hosts share on a PostgreSQL schema), or for comparison one unclustered service on
// `postgresStorage` or on `jsonFileStorage` in a temp folder — or, for the side-by-side with a job
// queue, pg-boss, whose `send` of a job with a start time stands in for schedule_create. It runs on
// a clock the parent can move (clusterClock.ts), with Sessions that only record what reaches them.
// Commands arrive on stdin as JSON lines `{id, cmd, …}`; each is answered on stdout with
// `{id, result}` or `{id, error}`. Other lines on stdout are events: `ready`, `delivered` (a
// reminder of an announced Session reached it) and `log`. Workloads run here, so a call's latency
// is measured where it is made, not across the pipe; `stats` reports the process's CPU time and the
// statements it sent (statementCounter.ts). It exits when stdin closes (its parent went away).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';
import { postgresStorage } from '../../src/entries/postgres.ts';
import type { Logger, ScheduleAgent, SessionController } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { emit } from '../../test/reliability/hostCrashProbe.ts';
import { createMovableClock } from './clusterClock.ts';
import { countStatements } from './statementCounter.ts';

/** What the parent passes as the one argument (JSON). */
export interface ClusterChildOptions {
  readonly mode: 'cluster' | 'postgres' | 'json' | 'pgboss';
  readonly url: string;
  readonly schema: string;
  readonly hostId: string;
  readonly leaseMs: number;
  /** The simulated wall time (epoch ms) at the real instant `realStart` (see `realNow`). */
  readonly simStart: number;
  readonly realStart: number;
  /** Connections of this process's pool. */
  readonly poolMax: number;
  /** The json mode's document. */
  readonly path?: string;
  /** Sessions whose id starts with this get a `delivered` event for each reminder flushed into them. */
  readonly announce?: string;
  /** A cluster Host's `routing.readAtOwner`: a Session's reads travel to its owner rather than read the schema. */
  readonly readAtOwner?: boolean;
}

/** What a workload's calls answered. */
export interface CallFigures {
  /** Latency of each call, in ms, in the order they finished. */
  readonly ms: number[];
  /** Per call: whether its Session's shard was held elsewhere (the call was routed). */
  readonly routed: boolean[];
  readonly failed: number;
  readonly firstFailure?: string;
}

const parsed = JSON.parse(process.argv[2] ?? 'null') as ClusterChildOptions | null;
if (parsed === null) throw new Error('usage: clusterChild.ts <options as JSON>');
const options: ClusterChildOptions = parsed;

const statements = countStatements();
const inspector = new Session();
const clock = createMovableClock(options);
const delivered = { reminders: 0, messages: 0, lastAt: 0 };

/** Sessions that keep nothing but counts: the reminders flushed into them and when the last flush ended. */
const sessions: SessionController = {
  async resolveAgent(sessionId) {
    let inbox: string[][] = [];
    const agent: ScheduleAgent = {
      followup(_message, meta) {
        inbox.push([...(meta?.idempotencyKeys ?? [])]);
        return { messageId: `m-${delivered.messages + inbox.length}-${Math.random().toString(36).slice(2)}` };
      },
      async flush() {
        await Promise.resolve();
        const batch = inbox;
        inbox = [];
        const at = realNow();
        for (const keys of batch) {
          delivered.messages++;
          delivered.reminders += keys.length;
          if (options.announce !== undefined && sessionId.startsWith(options.announce)) emit({ e: 'delivered', sessionId, keys, at });
        }
        delivered.lastAt = at;
      },
    };
    return agent;
  },
};

// Every warning and error goes to the parent, which counts them by message.
let logged = 0;
const logger: Logger = {
  warn: (msg, data) => {
    if (logged++ < 20_000) emit({ e: 'log', level: 'warn', msg, data: String((data as { cause?: unknown })?.cause ?? '') });
  },
  error: (msg, data) => {
    if (logged++ < 20_000) emit({ e: 'log', level: 'error', msg, data: String((data as { cause?: unknown })?.cause ?? '') });
  },
};

const pool = new pg.Pool({
  connectionString: options.url,
  max: options.poolMax,
  application_name: `agent-schedule-bench ${options.hostId}`,
});
pool.on('error', () => undefined);
const sqlPool = pool as unknown as SqlPool;
// The most queries waiting for a connection of the pool at once since the last `move`: read as each
// asks for one (the only moment the count grows), less those an idle connection takes on the next
// tick, rather than sampled on a timer, whose wakes every Host process would add to the CPU part 6
// measures.
let maxWaiting = 0;
const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient>;
pool.connect = ((...args: unknown[]) => {
  const connecting = connect(...args);
  maxWaiting = Math.max(maxWaiting, pool.waitingCount - pool.idleCount);
  return connecting;
}) as typeof pool.connect;

interface Caller {
  callTool(sessionId: string, name: string, args: unknown): Promise<unknown>;
  close(): Promise<void>;
  /** Whether a call for this Session is routed to another Host. */
  routed(sessionId: string): boolean;
  held(): number;
  /** Every service of this Host has opened (restored) and is idle. */
  whenIdle(): Promise<void>;
}

async function open(): Promise<Caller> {
  const config = { maxWaitMs: 3_600_000 };
  if (options.mode === 'cluster') {
    // The same service as one Host's, over a storage the Hosts share.
    const host = await createScheduleService({
      storage: postgresStorage({
        pool: sqlPool,
        schema: options.schema,
        cluster: {
          hostId: options.hostId,
          leaseMs: options.leaseMs,
          ...(options.readAtOwner === undefined ? {} : { routing: { readAtOwner: options.readAtOwner } }),
        },
      }),
      sessions,
      clock,
      config,
      logger,
    });
    const cluster = host.cluster;
    if (cluster === undefined) throw new Error('a shared storage makes a cluster member');
    // The shards held, read at most every 50 ms: `held()` builds a fresh map, which for every call
    // would put the benchmark's own bookkeeping into the CPU it measures.
    let heldAt = -Infinity;
    let held: ReadonlyMap<number, number> = new Map();
    const heldNow = (): ReadonlyMap<number, number> => {
      if (realNow() - heldAt > 50) {
        held = cluster.held();
        heldAt = realNow();
      }
      return held;
    };
    return {
      callTool: (sessionId, name, args) => host.callTool(sessionId, name, args),
      close: () => host.close(),
      routed: (sessionId) => !heldNow().has(shardOf(sessionId)),
      held: () => cluster.held().size,
      whenIdle: () => host.whenIdle(),
    };
  }
  if (options.mode === 'pgboss') return openPgBoss();
  const storage =
    options.mode === 'json' ? jsonFileStorage({ path: options.path ?? '' }) : postgresStorage({ pool: sqlPool, schema: options.schema });
  const service = await createScheduleService({ sessions, storage, clock, config, logger });
  return {
    callTool: (sessionId, name, args) => service.callTool(sessionId, name, args),
    close: () => service.close(),
    routed: () => false,
    held: () => 256,
    whenIdle: () => service.whenIdle(),
  };
}

/** pg-boss's queue the jobs go to. */
const QUEUE = 'reminders';

/** pg-boss with its defaults (maintenance and the cron monitor on), its pool as large as the services'. */
async function openPgBoss(): Promise<Caller> {
  const { default: PgBoss } = await import('pg-boss');
  const boss = new PgBoss({
    connectionString: options.url,
    schema: options.schema,
    max: options.poolMax,
    application_name: `agent-schedule-bench ${options.hostId}`,
  });
  boss.on('error', (error) => logger.error('pg-boss failed', { cause: error }));
  await boss.start();
  await boss.createQueue(QUEUE);
  return {
    async callTool(sessionId, _name, args) {
      const { title, prompt, at, after_seconds } = args as { title: string; prompt: string; at?: string; after_seconds?: number };
      const startAfter = at !== undefined ? new Date(at) : new Date(clock.now() + (after_seconds ?? 0) * 1000);
      const id = await boss.send(QUEUE, { sessionId, title, prompt }, { startAfter });
      return id === null ? { code: 'not_sent', message: 'pg-boss sent no job' } : { id };
    },
    close: () => boss.stop({ graceful: false, wait: true }),
    routed: () => false,
    held: () => 256,
    whenIdle: async () => {},
  };
}

const createArgs = (n: number) => ({ prompt: `Follow up on request ${n}`, title: `Follow-up ${n}`, after_seconds: 86_400 + n });

/** Runs `calls` (each a Session and arguments) of `tool` with `callers` in flight, timing each where it is made. */
async function timed(
  caller: Caller,
  calls: () => { sessionId: string; args: unknown } | undefined,
  callers: number,
  tool = 'schedule_create',
): Promise<CallFigures> {
  const figures: CallFigures & { failed: number; firstFailure?: string } = { ms: [], routed: [], failed: 0 };
  const worker = async (): Promise<void> => {
    for (let call = calls(); call !== undefined; call = calls()) {
      const routed = caller.routed(call.sessionId);
      const t0 = performance.now();
      let failure: string | undefined;
      try {
        const answer = (await caller.callTool(call.sessionId, tool, call.args)) as { code?: string; message?: string };
        if (answer.code !== undefined) failure = `${answer.code}: ${answer.message}`;
      } catch (error) {
        failure = String(error);
      }
      figures.ms.push(performance.now() - t0);
      figures.routed.push(routed);
      if (failure !== undefined) {
        figures.failed++;
        figures.firstFailure ??= failure;
      }
    }
  };
  await Promise.all(Array.from({ length: callers }, worker));
  return figures;
}

/** Draws a Session at random from the command's `ids`, or from `s-0` … `s-<sessions - 1>`. */
function sessionPicker(command: Record<string, unknown>): () => string {
  const { ids, sessions: n } = command as { ids?: string[]; sessions?: number };
  if (ids !== undefined) {
    if (ids.length === 0) throw new Error('no Session to call for');
    return () => ids[Math.floor(Math.random() * ids.length)]!;
  }
  return () => `s-${Math.floor(Math.random() * (n ?? 1))}`;
}

const sleepUntil = (real: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, real - realNow())));

let caller: Caller | undefined;
const ready = (): Caller => {
  if (caller === undefined) throw new Error('not joined');
  return caller;
};

type Command = { readonly id: number; readonly cmd: string } & Record<string, unknown>;

async function handle(command: Command): Promise<unknown> {
  switch (command.cmd) {
    case 'join':
      caller ??= await open();
      return { held: caller.held() };
    case 'held':
      return { held: ready().held() };
    case 'idle':
      await ready().whenIdle();
      return { held: ready().held() };
    case 'latency': {
      // One call at a time, each for a random Session of `ids` (default `s-0` … `s-<sessions - 1>`):
      // creates, or with `list` the Session's schedule_list.
      const { count, seed, list } = command as unknown as { count: number; seed: number; list?: boolean };
      const pick = sessionPicker(command);
      let i = 0;
      if (list === true) return timed(ready(), () => (i++ < count ? { sessionId: pick(), args: {} } : undefined), 1, 'schedule_list');
      return timed(ready(), () => (i < count ? { sessionId: pick(), args: createArgs(seed + i++) } : undefined), 1);
    }
    case 'throughput': {
      // `callers` in flight from the real instant `startAt` until `endAt`; only calls begun before `endAt`.
      const { callers, startAt, endAt, seed } = command as unknown as { callers: number; startAt: number; endAt: number; seed: number };
      const pick = sessionPicker(command);
      await sleepUntil(startAt);
      let i = 0;
      const figures = await timed(
        ready(),
        () => (realNow() < endAt ? { sessionId: pick(), args: createArgs(seed + i++) } : undefined),
        callers,
      );
      return { ...figures, endedAt: realNow() };
    }
    case 'createList': {
      // One one-shot task per entry of `sessions` (in that Session), all due at `at`, `callers` in flight.
      const {
        sessions: list,
        first,
        at,
        callers,
      } = command as unknown as { sessions: string[]; first: number; at: string; callers: number };
      let k = 0;
      // The process's CPU per create over each thousand calls started: how it falls as the paths warm up.
      const perThousand: number[] = [];
      const cpuMs = (): number => {
        const cpu = process.cpuUsage();
        return (cpu.user + cpu.system) / 1000;
      };
      let mark = cpuMs();
      const figures = await timed(
        ready(),
        () => {
          if (k >= list.length) return undefined;
          if (k > 0 && k % 1000 === 0) {
            const now = cpuMs();
            perThousand.push((now - mark) / 1000);
            mark = now;
          }
          const i = first + k;
          return { sessionId: list[k++]!, args: { prompt: `check ${i}`, title: `task ${i}`, at } };
        },
        callers,
      );
      return { failed: figures.failed, firstFailure: figures.firstFailure, calls: figures.ms.length, cpuMsPerCreate: perThousand };
    }
    case 'call': {
      const { sessionId, args } = command as unknown as { sessionId: string; args: unknown };
      return ready().callTool(sessionId, 'schedule_create', args);
    }
    case 'move': {
      const { sim, real } = command as unknown as { sim: number; real: number };
      clock.moveTo(sim, real);
      maxWaiting = 0;
      return {};
    }
    case 'now':
      return { now: clock.now(), real: realNow() };
    case 'stats': {
      const cpu = process.cpuUsage();
      return {
        ...delivered,
        cpuMs: (cpu.user + cpu.system) / 1000,
        maxWaiting,
        statements: statements(),
        rssMb: process.memoryUsage().rss / 2 ** 20,
      };
    }
    case 'profileStart':
      // A CPU profile of this process from now on (part 6 takes one of each phase when asked).
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.start');
      return {};
    case 'profileStop': {
      const { path } = command as unknown as { path: string };
      const { profile } = (await inspector.post('Profiler.stop')) as { profile: unknown };
      inspector.disconnect();
      writeFileSync(path, JSON.stringify(profile));
      return {};
    }
    case 'close': {
      await caller?.close();
      await pool.end();
      setImmediate(() => process.exit(0));
      return {};
    }
    default:
      throw new Error(`unknown command ${command.cmd}`);
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as Command;
  handle(command).then(
    (result) => emit({ id: command.id, result: result as Record<string, unknown> }),
    (error: unknown) => emit({ id: command.id, error: String((error as Error)?.stack ?? error) }),
  );
});
process.stdin.on('close', () => process.exit(2));
emit({ e: 'ready', pid: process.pid });
