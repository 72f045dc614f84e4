// `GET /api/cluster`: which Host holds which shards. On a cluster member's service the answer is
// read from the database at the replica asked: `clustered: true`, this replica's `hostId`, the database's
// `now`, the live Hosts (oldest membership first) each with how many of the 256 shards it holds
// and their ranges (`0-127`) and `self` for this replica, the count of shards no live lease
// holds, and every shard's owner, epoch and lease expiry. A single Host's service is no cluster:
// `{clustered: false}`.
import type { Context, Hono } from 'hono';
import { shardOf } from '../index.ts';
import { type ClusterTopology, type ConsoleCluster, type ConsoleService, clusterOf } from './options.ts';

type ShardOwnership = ClusterTopology['shards'][number];

/** One live Host as the inspector lists it. */
export interface ClusterHostSummary {
  readonly hostId: string;
  readonly startedAt: string;
  readonly expiresAt: string;
  /** How many shards it holds now. */
  readonly shards: number;
  /** Those shards as ranges, lowest first: `["0-85", "200"]`. */
  readonly ranges: string[];
  /** This replica. */
  readonly self: boolean;
}

/** What `GET /api/cluster` answers in database mode. */
export interface ClusterReport {
  readonly clustered: true;
  readonly hostId: string;
  readonly now: string;
  readonly hosts: ClusterHostSummary[];
  /** Shards no live lease holds (free, or expired and not yet taken over). */
  readonly unowned: number;
  readonly shards: ShardOwnership[];
}

/** `[0,1,2,5]` as `["0-2", "5"]`. */
export function shardRanges(shards: readonly number[]): string[] {
  const sorted = [...shards].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j += 1;
    ranges.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges;
}

/** The report of a topology, as seen by `hostId`. */
export function clusterReport(topology: ClusterTopology, hostId: string): ClusterReport {
  const held = new Map<string, number[]>();
  for (const { shard, owner } of topology.shards) {
    if (owner === null) continue;
    const list = held.get(owner) ?? [];
    list.push(shard);
    held.set(owner, list);
  }
  const hosts = topology.hosts.map((member) => {
    const shards = held.get(member.hostId) ?? [];
    return { ...member, shards: shards.length, ranges: shardRanges(shards), self: member.hostId === hostId };
  });
  return {
    clustered: true,
    hostId,
    now: topology.now,
    hosts,
    unowned: topology.shards.filter((s) => s.owner === null).length,
    shards: topology.shards,
  };
}

/** Registers the route. */
export function clusterRoute(app: Hono, service: ConsoleService): void {
  app.get('/api/cluster', async (c) => {
    const cluster = clusterOf(service);
    if (cluster === undefined) return c.json({ clustered: false });
    return c.json(clusterReport(await cluster.topology(), cluster.hostId));
  });
}

/**
 * Names the Host holding a Session's shard on an answer about that Session (`x-schedule-owner`,
 * absent while no Host holds it) and the shard itself (`x-schedule-shard`, FNV-1a of the Session
 * id modulo 256, docs/cluster.md), so a load balancer can send the Session's calls to its owner.
 */
export async function ownerHeaders(c: Context, cluster: ConsoleCluster, sessionId: string): Promise<void> {
  c.header('x-schedule-shard', String(shardOf(sessionId)));
  const owner = await cluster.ownerOf(sessionId);
  if (owner !== undefined) c.header('x-schedule-owner', owner);
}
