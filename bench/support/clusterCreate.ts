// Cluster benchmark, part 1: schedule_create latency and throughput, each case in Host processes
// of its own: the JSON file storage, postgresStorage unclustered, and a cluster of 1 and of 3
// Hosts. Latency: calls one at a time in the whole case (each Host in turn makes its share), each
// for a random one of 1,000 Sessions, so on 3 Hosts about 2/3 are routed to the Session's owner.
// Throughput: `callers` calls in flight for a fixed time, split evenly over the Hosts.
import type pg from 'pg';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import type { CallFigures } from './clusterChild.ts';
import { type GroupOptions, LEASE_MS, POOL_MAX, startGroup } from './clusterHosts.ts';
import { fmt } from './domains.ts';
import { quantile } from './stats.ts';

export const CREATE_SESSIONS = 1_000;
export const SEQUENTIAL = 300;
export const WARM_UP = 60;
export const CALLERS = 24;
export const THROUGHPUT_MS = 4_000;

export interface CreateFigures {
  readonly name: string;
  readonly hosts: number;
  readonly p50: number;
  readonly p99: number;
  /** Medians of the local and the routed calls (3 Hosts only). */
  readonly localP50?: number;
  readonly routedP50?: number;
  readonly routedShare: number;
  readonly perSecond: number;
  readonly throughputP50: number;
  readonly failed: number;
  readonly firstFailure?: string;
}

const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);

export async function measureCreates(admin: pg.Pool, name: string, group: GroupOptions): Promise<CreateFigures> {
  const g = await startGroup(admin, group);
  try {
    // Task numbers for the titles, a separate range per workload.
    let seed = 0;
    const nextSeed = (): number => {
      seed += 1_000_000;
      return seed;
    };
    for (const host of g.hosts) await host.send('latency', { count: WARM_UP, sessions: CREATE_SESSIONS, seed: nextSeed() });
    const ms: number[] = [];
    const routed: boolean[] = [];
    let failed = 0;
    let firstFailure: string | undefined;
    const take = (f: CallFigures): void => {
      failed += f.failed;
      firstFailure ??= f.firstFailure;
    };
    const share = Math.ceil(SEQUENTIAL / g.hosts.length);
    for (const host of g.hosts) {
      const f = await host.send<CallFigures>('latency', { count: share, sessions: CREATE_SESSIONS, seed: nextSeed() });
      ms.push(...f.ms);
      routed.push(...f.routed);
      take(f);
    }
    const startAt = realNow() + 200;
    const endAt = startAt + THROUGHPUT_MS;
    const runs = await Promise.all(
      g.hosts.map((host, i) =>
        host.send<CallFigures & { endedAt: number }>('throughput', {
          callers: Math.floor(CALLERS / g.hosts.length) + (i < CALLERS % g.hosts.length ? 1 : 0),
          startAt,
          endAt,
          sessions: CREATE_SESSIONS,
          seed: nextSeed(),
        }),
      ),
    );
    for (const r of runs) take(r);
    const done = runs.reduce((a, r) => a + r.ms.length - r.failed, 0);
    const lastEnd = Math.max(...runs.map((r) => r.endedAt));
    const local = sorted(ms.filter((_, i) => !routed[i]));
    const away = sorted(ms.filter((_, i) => routed[i]));
    return {
      name,
      hosts: g.hosts.length,
      p50: quantile(sorted(ms), 0.5),
      p99: quantile(sorted(ms), 0.99),
      ...(g.hosts.length > 1 ? { localP50: quantile(local, 0.5), routedP50: quantile(away, 0.5) } : {}),
      routedShare: away.length / ms.length,
      perSecond: done / ((lastEnd - startAt) / 1000),
      throughputP50: quantile(sorted(runs.flatMap((r) => r.ms)), 0.5),
      failed,
      ...(firstFailure === undefined ? {} : { firstFailure }),
    };
  } finally {
    await g.stop();
  }
}

export function printCreates(results: readonly CreateFigures[]): void {
  console.log(
    `schedule_create, ${SEQUENTIAL} calls one at a time (after ${WARM_UP} per Host to warm up), then ${CALLERS} callers in flight for ${THROUGHPUT_MS / 1000} s; each call for a random one of ${CREATE_SESSIONS.toLocaleString('en')} Sessions, at the Host that makes it; each Host process has a pool of ${POOL_MAX} connections; cluster leaseMs ${LEASE_MS}`,
  );
  console.log('');
  console.log('| storage | Host processes | p50 | p99 | p50 local / routed | routed | creates/s | p50 under load | failed |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const split = r.localP50 === undefined ? '—' : `${fmt(r.localP50, 2)} / ${fmt(r.routedP50 ?? Number.NaN, 2)} ms`;
    console.log(
      `| ${r.name} | ${r.hosts} | ${fmt(r.p50, 2)} ms | ${fmt(r.p99, 2)} ms | ${split} | ${fmt(r.routedShare * 100, 0)} % | ${fmt(r.perSecond, 0)} | ${fmt(r.throughputP50, 1)} ms | ${r.failed} |`,
    );
  }
  for (const r of results) if (r.firstFailure !== undefined) console.log(`\n${r.name}: first failure: ${r.firstFailure}`);
}
