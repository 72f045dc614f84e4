// Starting the Host processes of one cluster benchmark case: `n` processes of one mode on one
// schema, joined, and (for a cluster) waited on until the shards are split evenly; and stopping them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { DEFAULT_LEASE_MS } from '../../src/adapters/postgres/shardKeeper.ts';
import { realNow } from '../../test/reliability/acceleratedClock.ts';
import type { ClusterChildOptions } from './clusterChild.ts';
import { BENCH_URL, benchSchema, waitSettled } from './clusterDb.ts';
import { closeHostChild, type HostChild, startHostChild } from './clusterProcess.ts';

/** The simulated wall time every case starts at. */
export const SIM_START = Date.parse('2030-01-01T08:00:00.000Z');

/**
 * The lease of the cluster cases that kill nothing: the default. (A shorter lease can run out in
 * the 1-Host burst of part 2, while its renewals wait for the pool behind the deliveries' commits.)
 */
export const LEASE_MS = DEFAULT_LEASE_MS;

/** Connections in each Host process's pool. */
export const POOL_MAX = 8;

export interface HostGroup {
  readonly schema: string;
  readonly hosts: HostChild[];
  /** Options a further Host of this group starts with (a replacement after a kill), given its id. */
  options(hostId: string): ClusterChildOptions;
  /** Closes every Host still running and removes any temp folder. */
  stop(): Promise<void>;
}

export interface GroupOptions {
  readonly mode: ClusterChildOptions['mode'];
  readonly count: number;
  readonly tag: string;
  readonly leaseMs?: number;
  readonly announce?: string;
  /** Connections of each Host process's pool; default {@link POOL_MAX}. */
  readonly poolMax?: number;
  /** A schema made (and seeded) beforehand by `benchSchema`; default a fresh one. */
  readonly schema?: string;
  /** The Hosts' `routing.readAtOwner` (a cluster only). */
  readonly readAtOwner?: boolean;
}

/** Starts `count` Host processes, joins them and, for a cluster, waits until the shards are split evenly. */
export async function startGroup(admin: pg.Pool, group: GroupOptions): Promise<HostGroup> {
  const schema = group.schema ?? benchSchema(group.tag, group.mode === 'pgboss' ? 'pgboss_bench' : 'cluster_bench');
  const dir = group.mode === 'json' ? mkdtempSync(join(tmpdir(), 'cluster-bench-')) : undefined;
  const realStart = realNow();
  const options = (hostId: string): ClusterChildOptions => ({
    mode: group.mode,
    url: BENCH_URL,
    schema,
    hostId,
    leaseMs: group.leaseMs ?? LEASE_MS,
    simStart: SIM_START,
    realStart,
    poolMax: group.poolMax ?? POOL_MAX,
    ...(dir === undefined ? {} : { path: join(dir, 'schedule.json') }),
    ...(group.announce === undefined ? {} : { announce: group.announce }),
    ...(group.readAtOwner === undefined ? {} : { readAtOwner: group.readAtOwner }),
  });
  const started = await Promise.allSettled(Array.from({ length: group.count }, (_, i) => startHostChild(options(`${group.tag}-h${i}`))));
  const hosts = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(hosts.map((h) => closeHostChild(h)));
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    // Together, as Hosts started at once would (the migrations run once, under an advisory lock).
    await Promise.all(hosts.map((host) => host.send('join')));
    if (group.mode === 'cluster')
      await waitSettled(
        admin,
        schema,
        hosts.map((h) => h.hostId),
      );
  } catch (error) {
    await stop();
    const logged = hosts.flatMap((h) => h.logs.slice(0, 2).map((l) => `${h.hostId}: ${l.msg} ${l.data ?? ''}`));
    throw new Error(`${(error as Error).message}${logged.length > 0 ? `; the Hosts logged: ${logged.join('; ')}` : ''}`, { cause: error });
  }
  return { schema, hosts, options, stop };
}
