// Cluster benchmark, part 1: schedule_create latency and throughput, each case in Host processes
// of its own: the JSON file storage, postgresStorage unclustered, and a cluster of 1 and of 3
// Hosts. Each call is for one of 1,000 Sessions and is made by a client at one Host, which one
// the client chooses: `random` (any Host, as a load balancer that knows nothing does: on 3 Hosts
// about 2/3 of the calls reach a Host that does not own the Session and are routed), `owner` (the
// Session's owner, found as a load balancer would: the documented Session → shard hash and the
// owners in `shard_leases`), or `away` (never the owner: every call routed, for the routed path's
// own figures). Latency: calls one at a time in the whole case (each Host in turn makes its
// share). Throughput: `callers` calls in flight for a fixed time, split evenly over the Hosts.
// Round trips: the statements all Host processes sent during the run, less their idle rate, per create.
import type pg from 'pg';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import { envNumber } from './benchEnv.ts';
import type { CallFigures } from './clusterChild.ts';
import { background, statementsPer, totals } from './clusterCounters.ts';
import { ownersOf } from './clusterDb.ts';
import { type GroupOptions, type HostGroup, LEASE_MS, POOL_MAX, startGroup } from './clusterHosts.ts';
import { fmt } from './domains.ts';
import { quantile } from './stats.ts';

export const CREATE_SESSIONS = 1_000;
export const SEQUENTIAL = envNumber('CLUSTER_BENCH_SEQUENTIAL', 300);
export const WARM_UP = 60;
export const CALLERS = envNumber('CLUSTER_BENCH_CALLERS', 24);
export const THROUGHPUT_MS = envNumber('CLUSTER_BENCH_THROUGHPUT_MS', 4_000);

/** Which Host a client sends each call to (see the file comment). */
export type Client = 'random' | 'owner' | 'away';

export interface CreateFigures {
  readonly name: string;
  readonly client: Client;
  readonly hosts: number;
  readonly p50: number;
  readonly p99: number;
  /** Medians of the local and the routed calls (when both kinds were made). */
  readonly localP50?: number;
  readonly routedP50?: number;
  readonly routedShare: number;
  /** NaN when the client ran no throughput part. */
  readonly perSecond: number;
  readonly throughputP50: number;
  readonly throughputP99: number;
  /** Statements sent per create: one at a time, and under load. */
  readonly statementsSequential: number;
  readonly statementsLoaded: number;
  readonly failed: number;
  readonly firstFailure?: string;
}

const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
const ALL_SESSIONS = Array.from({ length: CREATE_SESSIONS }, (_, i) => `s-${i}`);

/** Per Host, the Sessions its calls are drawn from (undefined: all of them). */
async function sessionsPerHost(admin: pg.Pool, g: HostGroup, client: Client): Promise<(string[] | undefined)[]> {
  if (client === 'random') return g.hosts.map(() => undefined);
  const owners = await ownersOf(admin, g.schema, ALL_SESSIONS);
  return g.hosts.map((h) => ALL_SESSIONS.filter((s) => (owners.get(s) === h.hostId) === (client === 'owner')));
}

/**
 * Starts the case's Host processes and measures each client in turn on them (`away` makes no
 * throughput run: it is there for the routed path's latency and round trips).
 */
export async function measureCreates(
  admin: pg.Pool,
  name: string,
  group: GroupOptions,
  clients: readonly Client[] = ['random'],
): Promise<CreateFigures[]> {
  const g = await startGroup(admin, group);
  try {
    // Task numbers for the titles, a separate range per workload.
    let seed = 0;
    const nextSeed = (): number => {
      seed += 1_000_000;
      return seed;
    };
    for (const host of g.hosts) await host.send('latency', { count: WARM_UP, sessions: CREATE_SESSIONS, seed: nextSeed() });
    // Every shard opened and every commit done before the idle rate is taken.
    await Promise.all(g.hosts.map((h) => h.send('idle')));
    const idle = await background(g.hosts);
    const results: CreateFigures[] = [];
    for (const client of clients) {
      const ids = await sessionsPerHost(admin, g, client);
      const ms: number[] = [];
      const routed: boolean[] = [];
      let failed = 0;
      let firstFailure: string | undefined;
      const take = (f: CallFigures): void => {
        failed += f.failed;
        firstFailure ??= f.firstFailure;
      };
      const share = Math.ceil(SEQUENTIAL / g.hosts.length);
      const before = await totals(g.hosts);
      for (const [i, host] of g.hosts.entries()) {
        const f = await host.send<CallFigures>('latency', { count: share, sessions: CREATE_SESSIONS, ids: ids[i], seed: nextSeed() });
        ms.push(...f.ms);
        routed.push(...f.routed);
        take(f);
      }
      const after = await totals(g.hosts);
      let loaded = { perSecond: Number.NaN, p50: Number.NaN, p99: Number.NaN, statements: Number.NaN };
      if (client !== 'away') {
        const startAt = realNow() + 200;
        const endAt = startAt + THROUGHPUT_MS;
        const runs = await Promise.all(
          g.hosts.map((host, i) =>
            host.send<CallFigures & { endedAt: number }>('throughput', {
              callers: Math.floor(CALLERS / g.hosts.length) + (i < CALLERS % g.hosts.length ? 1 : 0),
              startAt,
              endAt,
              sessions: CREATE_SESSIONS,
              ids: ids[i],
              seed: nextSeed(),
            }),
          ),
        );
        const end = await totals(g.hosts);
        for (const r of runs) take(r);
        const done = runs.reduce((a, r) => a + r.ms.length - r.failed, 0);
        const lastEnd = Math.max(...runs.map((r) => r.endedAt));
        const all = sorted(runs.flatMap((r) => r.ms));
        loaded = {
          perSecond: done / ((lastEnd - startAt) / 1000),
          p50: quantile(all, 0.5),
          p99: quantile(all, 0.99),
          // From the sequential part's end: the 200 ms before the start are idle, their rate taken off.
          statements: statementsPer(after, end, idle, all.length),
        };
      }
      const local = sorted(ms.filter((_, i) => !routed[i]));
      const away = sorted(ms.filter((_, i) => routed[i]));
      results.push({
        name,
        client,
        hosts: g.hosts.length,
        p50: quantile(sorted(ms), 0.5),
        p99: quantile(sorted(ms), 0.99),
        ...(local.length > 0 && away.length > 0 ? { localP50: quantile(local, 0.5), routedP50: quantile(away, 0.5) } : {}),
        routedShare: away.length / ms.length,
        perSecond: loaded.perSecond,
        throughputP50: loaded.p50,
        throughputP99: loaded.p99,
        statementsSequential: statementsPer(before, after, idle, ms.length),
        statementsLoaded: loaded.statements,
        failed,
        ...(firstFailure === undefined ? {} : { firstFailure }),
      });
    }
    return results;
  } finally {
    await g.stop();
  }
}

const CLIENT_NAMES: Record<Client, string> = { random: 'any Host', owner: 'the owner', away: 'never the owner' };

export function printCreates(results: readonly CreateFigures[]): void {
  console.log(
    `schedule_create, ${SEQUENTIAL} calls one at a time (after ${WARM_UP} per Host to warm up), then ${CALLERS} callers in flight for ${THROUGHPUT_MS / 1000} s; each call for a random one of ${CREATE_SESSIONS.toLocaleString('en')} Sessions, sent by the client to the Host named; each Host process has a pool of ${POOL_MAX} connections; cluster leaseMs ${LEASE_MS}; round trips: statements sent by all Host processes, less their idle rate, per create`,
  );
  console.log('');
  console.log(
    '| storage | Host processes | client sends to | p50 | p99 | p50 local / routed | routed | creates/s | p50 / p99 under load | round trips per create (one at a time / under load) | failed |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const split = r.localP50 === undefined ? '—' : `${fmt(r.localP50, 2)} / ${fmt(r.routedP50 ?? Number.NaN, 2)} ms`;
    const loaded = Number.isNaN(r.perSecond);
    console.log(
      `| ${r.name} | ${r.hosts} | ${CLIENT_NAMES[r.client]} | ${fmt(r.p50, 2)} ms | ${fmt(r.p99, 2)} ms | ${split} | ${fmt(r.routedShare * 100, 0)} % | ${loaded ? '—' : fmt(r.perSecond, 0)} | ${loaded ? '—' : `${fmt(r.throughputP50, 1)} / ${fmt(r.throughputP99, 1)} ms`} | ${fmt(r.statementsSequential, 1)} / ${loaded ? '—' : fmt(r.statementsLoaded, 1)} | ${r.failed} |`,
    );
  }
  for (const r of results) if (r.firstFailure !== undefined) console.log(`\n${r.name} (${r.client}): first failure: ${r.firstFailure}`);
}
