// Cluster benchmark, part 4: what a Host does when it gains one shard holding 400 tasks — take the
// shard's lease, then open the shard's schedule service (restoring its tasks) over a storage
// scoped to that shard and fenced by the lease, as createClusterService opens every shard it gains.
// Each repetition gives the shard back and closes the service; the first one warms up.
import type pg from 'pg';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { ShardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { envNumber } from './benchEnv.ts';
import { benchSchema } from './clusterDb.ts';
import { SIM_START } from './clusterHosts.ts';
import { seedRows, sessionsInShard } from './clusterSeed.ts';
import { activeRows, fmt } from './domains.ts';
import { quantile } from './stats.ts';

export const SHARD_TASKS = 400;
const SHARD_SESSIONS = 20;
export const REPETITIONS = envNumber('CLUSTER_BENCH_SHARD_REPETITIONS', 9);
const HOST = 'restore-host';

export interface RestoreFigures {
  readonly acquireMs: number[];
  readonly openMs: number[];
  readonly totalMs: number[];
  /** Tasks due within the service's one-hour passivation horizon (restored as live actors). */
  readonly live: number;
}

export async function measureShardRestore(admin: pg.Pool): Promise<RestoreFigures> {
  const pool = admin as unknown as SqlPool;
  const schema = benchSchema('restore');
  // Shard 0: the lowest free shard, the one a lease acquire of one shard takes first.
  const sessions = sessionsInShard(0, SHARD_SESSIONS, 'restore-');
  const firstTarget = new Date(SIM_START + 60_000).toISOString();
  const rows = activeRows(SHARD_TASKS, SHARD_SESSIONS, firstTarget).map((row, i) => ({ ...row, sessionId: sessions[i % SHARD_SESSIONS]! }));
  await seedRows(pool, schema, rows);
  const leases = new ShardLeases({ pool, schema });
  const figures = { acquireMs: [] as number[], openMs: [] as number[], totalMs: [] as number[] };
  for (let rep = 0; rep <= REPETITIONS; rep++) {
    const t0 = performance.now();
    const [lease] = await leases.acquire({ hostId: HOST, leaseMs: 60_000, want: 1 });
    if (lease?.shard !== 0) throw new Error(`the lease acquire took ${JSON.stringify(lease)}, not shard 0`);
    const t1 = performance.now();
    const service = await createScheduleService({
      sessions: createFakeSessions(),
      clock: createManualClock(new Date(SIM_START).toISOString()),
      logger: { warn() {}, error() {} },
      storage: postgresStorage({ pool, schema, shards: [0], fence: { hostId: HOST, epochs: () => new Map([[0, lease.epoch]]) } }),
    });
    const t2 = performance.now();
    const listed = await service.remote.list({ sessionId: sessions[0]! });
    if ('code' in listed || listed.length !== SHARD_TASKS / SHARD_SESSIONS)
      throw new Error(`the shard restored wrongly: ${JSON.stringify(listed).slice(0, 200)}`);
    await service.close();
    await leases.release(HOST, [0]);
    if (rep === 0) continue;
    figures.acquireMs.push(t1 - t0);
    figures.openMs.push(t2 - t1);
    figures.totalMs.push(t2 - t0);
  }
  const horizon = SIM_START + 3_600_000;
  return { ...figures, live: rows.filter((r) => Date.parse(r.record.scheduledAt) <= horizon).length };
}

export function printShardRestore(r: RestoreFigures): void {
  const med = (xs: number[]) =>
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  const max = (xs: number[]) => Math.max(...xs);
  console.log(
    `one shard holding ${SHARD_TASKS} active tasks of five kinds over ${SHARD_SESSIONS} Sessions (${r.live} due within the one-hour passivation horizon): lease acquire, then the shard's service opens and restores it; ${REPETITIONS} repetitions after a warm-up`,
  );
  console.log('');
  console.log('| step | median | slowest |');
  console.log('|---|---:|---:|');
  console.log(`| lease acquire | ${fmt(med(r.acquireMs), 1)} ms | ${fmt(max(r.acquireMs), 1)} ms |`);
  console.log(`| service open with restore | ${fmt(med(r.openMs), 1)} ms | ${fmt(max(r.openMs), 1)} ms |`);
  console.log(`| acquire + open | ${fmt(med(r.totalMs), 1)} ms | ${fmt(max(r.totalMs), 1)} ms |`);
}
