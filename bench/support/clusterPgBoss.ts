// Cluster benchmark, part 5: creates beside pg-boss on the same server. One Host process on
// postgresStorage (unclustered) calling schedule_create, and one process running pg-boss with its
// defaults calling `send` of a job with a start time (a reminder a day ahead in both), each with a
// pool of the same size. Rounds alternate (A B A B) so that the machine's drift falls on both: per
// round, calls one at a time (p50, p99), then `callers` in flight for a fixed time (creates/s); the
// statements each process sent, less its idle rate, per create.
import type pg from 'pg';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { envNumber } from './benchEnv.ts';
import type { CallFigures } from './clusterChild.ts';
import { background, statementsPer, totals } from './clusterCounters.ts';
import { type HostGroup, startGroup } from './clusterHosts.ts';
import { fmt } from './domains.ts';
import { median, quantile } from './stats.ts';

export const VS_ROUNDS = envNumber('CLUSTER_BENCH_PGBOSS_ROUNDS', 2);
export const VS_SEQUENTIAL = envNumber('CLUSTER_BENCH_PGBOSS_SEQUENTIAL', 300);
export const VS_CALLERS = 20;
export const VS_MS = envNumber('CLUSTER_BENCH_PGBOSS_MS', 5_000);
/** pg-boss's default pool size, given to both. */
export const VS_POOL = 10;
const SESSIONS = 1_000;

export interface VsRound {
  readonly system: 'postgresStorage' | 'pg-boss';
  readonly round: number;
  readonly p50: number;
  readonly p99: number;
  readonly perSecond: number;
  readonly loadedP50: number;
  readonly statementsSequential: number;
  readonly statementsLoaded: number;
  readonly failed: number;
  readonly firstFailure?: string;
}

const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);

async function round(g: HostGroup, system: VsRound['system'], n: number, seed: number): Promise<VsRound> {
  const [host] = g.hosts;
  if (host === undefined) throw new Error(`${system} did not start`);
  await host.send('idle');
  const idle = await background(g.hosts, 1_000);
  const t0 = await totals(g.hosts);
  const one = await host.send<CallFigures>('latency', { count: VS_SEQUENTIAL, sessions: SESSIONS, seed });
  const t1 = await totals(g.hosts);
  const startAt = realNow() + 100;
  const many = await host.send<CallFigures & { endedAt: number }>('throughput', {
    callers: VS_CALLERS,
    startAt,
    endAt: startAt + VS_MS,
    sessions: SESSIONS,
    seed: seed + 500_000,
  });
  const t2 = await totals(g.hosts);
  const ms = sorted(one.ms);
  const firstFailure = one.firstFailure ?? many.firstFailure;
  return {
    system,
    round: n,
    p50: quantile(ms, 0.5),
    p99: quantile(ms, 0.99),
    perSecond: (many.ms.length - many.failed) / ((many.endedAt - startAt) / 1000),
    loadedP50: quantile(sorted(many.ms), 0.5),
    statementsSequential: statementsPer(t0, t1, idle, one.ms.length),
    statementsLoaded: statementsPer(t1, t2, idle, many.ms.length),
    failed: one.failed + many.failed,
    ...(firstFailure === undefined ? {} : { firstFailure }),
  };
}

export async function measureVsPgBoss(admin: pg.Pool): Promise<VsRound[]> {
  const ours = await startGroup(admin, { mode: 'postgres', count: 1, tag: 'vsplain', poolMax: VS_POOL });
  try {
    const boss = await startGroup(admin, { mode: 'pgboss', count: 1, tag: 'vsboss', poolMax: VS_POOL });
    try {
      for (const g of [ours, boss]) await g.hosts[0]!.send('latency', { count: 100, sessions: SESSIONS, seed: 0 });
      const rounds: VsRound[] = [];
      for (let n = 1; n <= VS_ROUNDS; n++) {
        rounds.push(await round(ours, 'postgresStorage', n, n * 2_000_000));
        rounds.push(await round(boss, 'pg-boss', n, n * 2_000_000 + 1_000_000));
      }
      return rounds;
    } finally {
      await boss.stop();
    }
  } finally {
    await ours.stop();
  }
}

export function printVsPgBoss(rounds: readonly VsRound[]): void {
  console.log(
    `creates on one process each, rounds alternating: postgresStorage (unclustered) schedule_create against pg-boss \`send\` of a job with \`startAfter\` a day ahead; per round ${VS_SEQUENTIAL} calls one at a time, then ${VS_CALLERS} callers for ${VS_MS / 1000} s; pools of ${VS_POOL} connections; round trips: statements the process sent, less its idle rate, per create`,
  );
  console.log('');
  console.log(
    '| round | system | 1 caller p50 | 1 caller p99 | creates/s, 20 callers | p50, 20 callers | round trips per create (1 / 20 callers) | failed |',
  );
  console.log('|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rounds)
    console.log(
      `| ${r.round} | ${r.system} | ${fmt(r.p50, 2)} ms | ${fmt(r.p99, 2)} ms | ${fmt(r.perSecond, 0)} | ${fmt(r.loadedP50, 1)} ms | ${fmt(r.statementsSequential, 1)} / ${fmt(r.statementsLoaded, 1)} | ${r.failed} |`,
    );
  console.log('');
  for (const system of ['postgresStorage', 'pg-boss'] as const) {
    const of = rounds.filter((r) => r.system === system);
    console.log(
      `${system}: median over ${of.length} rounds ${fmt(median(of.map((r) => r.perSecond)), 0)} creates/s with 20 callers, 1 caller p50 ${fmt(median(of.map((r) => r.p50)), 2)} ms`,
    );
  }
  for (const r of rounds) if (r.firstFailure !== undefined) console.log(`\n${r.system} round ${r.round}: first failure: ${r.firstFailure}`);
}
