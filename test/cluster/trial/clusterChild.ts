// The cluster trials' Host process (run with `node --import tsx clusterChild.ts '<options JSON>'`):
// one Host of a cluster on a shared PostgreSQL schema. It opens a pg pool on the URL it is given
// (the server, or a loopback proxy the parent can cut), the PostgreSQL Sessions without the demo
// agent (the transcripts then hold only reminders, one line per delivery, which the checks read),
// and `createClusterService` with its host id, a short lease and the accelerated clock every Host
// of the trial shares. It takes calls from stdin, one JSON line each (`{ n, sessionId, name, args }`,
// a tool call for any Session, or `remote.get` of one task: the cluster routes it), and writes one JSON event per line on
// stdout: `ready`, `attempt` as a call starts and `ack` with its answer, `held` whenever the set
// of shards it holds changes, the Session probes' `followup`, `flushing` and `flushed` (the
// crash trials' probes), `holding` when, told `{ hold: true }`, it holds the next flush before
// its commit until the parent's SIGKILL (so a kill lands between a flush and the commit recording
// it), `retaken` when a shard it gave up is held again at the same epoch, `stall` when its event loop was blocked for over half a second, and `log` for what the
// service logs. It exits
// when stdin closes (its parent went away).
import { createInterface } from 'node:readline';
import pg from 'pg';
import { createPostgresSessions } from '../../../host/sessions/postgresSessions.ts';
import type { SqlPool } from '../../../src/adapters/postgres/driver.ts';
import { type ClusterService, createClusterService } from '../../../src/cluster/clusterService.ts';
import { type AcceleratedClockAnchor, createAcceleratedClock } from '../../reliability/acceleratedClock.ts';
import { createProbe, emit, type Probe, probeSessions } from '../../reliability/hostCrashProbe.ts';

/** What the parent passes as the one argument (JSON). */
export interface ClusterChildOptions {
  readonly url: string;
  readonly schema: string;
  readonly hostId: string;
  readonly leaseMs: number;
  readonly anchor: AcceleratedClockAnchor;
  /** The longest timer wait, simulated ms. */
  readonly maxWaitMs: number;
  /** Tasks due further ahead than this (simulated ms) stay rows without an actor. */
  readonly passivationHorizonMs: number;
  /** How long a routed call waits for its owner, real ms. */
  readonly routeTimeoutMs: number;
}

/** A line on stdin: a call, or `{ hold: true }` (hold the next flush before its commit). */
export type ClusterCommand = ClusterCall | { readonly hold: true };

/** One call the parent sends on stdin. */
export interface ClusterCall {
  readonly n: number;
  readonly sessionId: string;
  readonly name: 'schedule_create' | 'schedule_update' | 'schedule_delete' | 'remote.get';
  readonly args: Readonly<Record<string, unknown>>;
}

/** Longest hold; the parent's kill comes within milliseconds. */
const HOLD_MS = 10_000;

const options = JSON.parse(process.argv[2] ?? 'null') as ClusterChildOptions | null;
if (options === null) throw new Error('usage: clusterChild.ts <options as JSON>');

const clock = createAcceleratedClock(options.anchor);
const pool = new pg.Pool({
  connectionString: options.url,
  max: Number(process.env.CLUSTER_TRIAL_POOL ?? 10),
  application_name: `cluster-trial-${options.hostId}`,
});
pool.on('error', () => undefined);
const announce = createProbe(null);
/** Set by `{ hold: true }`: the next `flushed` waits (announced as `holding`) for the parent's SIGKILL. */
let holdNext = false;
const probe: Probe = async (point, data) => {
  await announce(point, data);
  if (point === 'flushed' && holdNext) {
    holdNext = false;
    emit({ e: 'holding', ...data });
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
  }
};
const inner = createPostgresSessions({
  pool: pool as unknown as SqlPool,
  schema: options.schema,
  now: () => clock.now(),
  demoAgent: false,
});
const sessions = probeSessions(inner, probe, (sessionId, keys, messageId) =>
  emit({ e: 'followup', sessionId, keys, messageId, at: Date.now() }),
);

const cluster: ClusterService = await createClusterService({
  pool: pool as unknown as SqlPool,
  schema: options.schema,
  hostId: options.hostId,
  leaseMs: options.leaseMs,
  sessions,
  clock,
  config: { maxWaitMs: options.maxWaitMs, passivationHorizonMs: options.passivationHorizonMs },
  routing: { timeoutMs: options.routeTimeoutMs },
  logger: {
    warn: (msg) => emit({ e: 'log', level: 'warn', msg }),
    error: (msg, data) => emit({ e: 'log', level: 'error', msg, data: String((data as { cause?: unknown })?.cause ?? '') }),
  },
});
emit({ e: 'ready', hostId: options.hostId });

let shown = '';
let tick = performance.now();
let maxWaiting = 0;
/** The shards seen held at the last tick, and the epoch of each shard given up since (to spot one taken back at the same epoch). */
let heldBefore: ReadonlyMap<number, number> = new Map();
const lostAt = new Map<number, number>();
setInterval(() => {
  // How long the event loop stalled (beyond the 50 ms tick): past the lease, the leases are lost.
  const now = performance.now();
  if (now - tick > 550) emit({ e: 'stall', ms: Math.round(now - tick - 50) });
  if (pool.waitingCount > maxWaiting) {
    maxWaiting = pool.waitingCount;
    emit({ e: 'waiting', count: maxWaiting });
  }
  tick = now;
  const heldNow = cluster.held();
  for (const [shard, epoch] of heldNow) if (lostAt.get(shard) === epoch) emit({ e: 'retaken', shard, epoch });
  for (const [shard, epoch] of heldBefore) if (!heldNow.has(shard)) lostAt.set(shard, epoch);
  for (const shard of heldNow.keys()) lostAt.delete(shard);
  heldBefore = heldNow;
  const shards = [...heldNow.keys()].sort((a, b) => a - b);
  const text = shards.join(',');
  if (text !== shown) {
    shown = text;
    emit({ e: 'held', count: shards.length });
  }
}, 50);

async function perform(call: ClusterCall): Promise<void> {
  emit({ e: 'attempt', n: call.n });
  let result: unknown;
  try {
    result =
      call.name === 'remote.get'
        ? await cluster.remote.get({ sessionId: call.sessionId, id: String(call.args.id) })
        : await cluster.callTool(call.sessionId, call.name, call.args);
  } catch (error) {
    result = { code: 'thrown', message: String(error) };
  }
  emit({ e: 'ack', n: call.n, result });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  const command = JSON.parse(line) as ClusterCommand;
  if ('hold' in command) holdNext = true;
  else void perform(command);
});
lines.on('close', () => process.exit(2));
