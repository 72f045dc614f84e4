// One Host process of the cluster benchmark, compiled as every benchmark is (bench/support/
// clusterProcess.ts starts it from beside itself). It runs a schedule service — one Host of a cluster
// (`createClusterService` on a PostgreSQL schema), or for comparison one unclustered service on
// `postgresStorage` or on `jsonFileStorage` in a temp folder — on a clock the parent can move
// (clusterClock.ts), with Sessions that only record what reaches them. Commands arrive on stdin as
// JSON lines `{id, cmd, …}`; each is answered on stdout with `{id, result}` or `{id, error}`. Other
// lines on stdout are events: `ready`, `delivered` (a reminder of an announced Session reached it)
// and `log`. Workloads run here, so a call's latency is measured where it is made, not across the
// pipe. It exits when stdin closes (its parent went away).
import { createInterface } from 'node:readline';
import pg from 'pg';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { shardOf } from '../../src/adapters/postgres/rowColumns.ts';
import { createClusterService } from '../../src/cluster/clusterService.ts';
import type { Logger, ScheduleAgent, SessionController } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { emit } from '../../test/reliability/hostCrashProbe.ts';
import { createMovableClock } from './clusterClock.ts';

/** What the parent passes as the one argument (JSON). */
export interface ClusterChildOptions {
  readonly mode: 'cluster' | 'postgres' | 'json';
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
// The most queries seen waiting for a connection of the pool (sampled every 20 ms) since the last `move`.
let maxWaiting = 0;
setInterval(() => {
  maxWaiting = Math.max(maxWaiting, pool.waitingCount);
}, 20).unref();

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
    const host = await createClusterService({
      pool: sqlPool,
      schema: options.schema,
      hostId: options.hostId,
      leaseMs: options.leaseMs,
      sessions,
      clock,
      config,
      logger,
    });
    return {
      callTool: (sessionId, name, args) => host.callTool(sessionId, name, args),
      close: () => host.close(),
      routed: (sessionId) => !host.held().has(shardOf(sessionId)),
      held: () => host.held().size,
      whenIdle: () => host.whenIdle(),
    };
  }
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

const createArgs = (n: number) => ({ prompt: `Follow up on request ${n}`, title: `Follow-up ${n}`, after_seconds: 86_400 + n });

/** Runs `calls` (each a Session and arguments) with `callers` in flight, timing each where it is made. */
async function timed(caller: Caller, calls: () => { sessionId: string; args: unknown } | undefined, callers: number): Promise<CallFigures> {
  const figures: CallFigures & { failed: number; firstFailure?: string } = { ms: [], routed: [], failed: 0 };
  const worker = async (): Promise<void> => {
    for (let call = calls(); call !== undefined; call = calls()) {
      const routed = caller.routed(call.sessionId);
      const t0 = performance.now();
      let failure: string | undefined;
      try {
        const answer = (await caller.callTool(call.sessionId, 'schedule_create', call.args)) as { code?: string; message?: string };
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
      // One call at a time, each for a random Session among `sessions`.
      const { count, sessions: n, seed } = command as unknown as { count: number; sessions: number; seed: number };
      let i = 0;
      return timed(
        ready(),
        () => (i < count ? { sessionId: `s-${Math.floor(Math.random() * n)}`, args: createArgs(seed + i++) } : undefined),
        1,
      );
    }
    case 'throughput': {
      // `callers` in flight from the real instant `startAt` until `endAt`; only calls begun before `endAt`.
      const {
        callers,
        startAt,
        endAt,
        sessions: n,
        seed,
      } = command as unknown as {
        callers: number;
        startAt: number;
        endAt: number;
        sessions: number;
        seed: number;
      };
      await sleepUntil(startAt);
      let i = 0;
      const figures = await timed(
        ready(),
        () => (realNow() < endAt ? { sessionId: `s-${Math.floor(Math.random() * n)}`, args: createArgs(seed + i++) } : undefined),
        callers,
      );
      return { ...figures, endedAt: realNow() };
    }
    case 'createAt': {
      // Tasks first, first+step, … (`count` of them), task i in Session `<prefix><i mod sessions>`, all due at `at`.
      const {
        first,
        step,
        count,
        sessions: n,
        prefix,
        at,
        callers,
      } = command as unknown as {
        first: number;
        step: number;
        count: number;
        sessions: number;
        prefix: string;
        at: string;
        callers: number;
      };
      let k = 0;
      const figures = await timed(
        ready(),
        () => {
          if (k >= count) return undefined;
          const i = first + step * k++;
          return { sessionId: `${prefix}${i % n}`, args: { prompt: `check ${i}`, title: `task ${i}`, at } };
        },
        callers,
      );
      return { failed: figures.failed, firstFailure: figures.firstFailure, ms: figures.ms.reduce((a, b) => a + b, 0) };
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
      return { ...delivered, cpuMs: (cpu.user + cpu.system) / 1000, maxWaiting };
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
