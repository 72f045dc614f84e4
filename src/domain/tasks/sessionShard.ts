// A Session's shard: the Session group the supervisor keeps its actor in, and the unit a cluster
// leases. Kept in the domain (no XState types), so the main entry exports it without loading them.

/** How many shards (Session groups) there are. */
export const SHARDS = 256;

/**
 * The Session group of a Session (0–255), which is also its shard in a cluster: the 32-bit
 * FNV-1a hash of the id's UTF-16 code units, modulo 256 — no table, the same across restarts and
 * Hosts, so a load balancer can compute it (docs/cluster.md).
 */
export function shardOf(sessionId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < sessionId.length; i++) {
    hash ^= sessionId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARDS;
}
