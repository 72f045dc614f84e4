// The cluster benchmark's view of the database: its schemas (`cluster_bench_<random>_<case>`, and
// `pgboss_bench_<random>_<case>` for pg-boss's, all dropped at the end), the shard leases as
// `<schema>.shard_leases` holds them, who owns a Session, and waiting until the live Hosts' shares
// have settled.
import pg from 'pg';
import type { SqlPool } from '../../src/adapters/postgres/driver.ts';
import { shardOf } from '../../src/domain/tasks/sessionShard.ts';

/** The database the benchmark runs on (`CLUSTER_BENCH_URL` overrides). */
export const BENCH_URL = process.env.CLUSTER_BENCH_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const made: string[] = [];

/** A fresh schema name for one case of this run; {@link dropSchemas} drops every one handed out. */
export function benchSchema(tag: string, prefix: 'cluster_bench' | 'pgboss_bench' = 'cluster_bench'): string {
  const schema = `${prefix}_${runId}_${tag}`;
  made.push(schema);
  return schema;
}

/** The parent's pool for watching the leases (and seeding). */
export function adminPool(): pg.Pool & SqlPool {
  const pool = new pg.Pool({ connectionString: BENCH_URL, max: 3, application_name: 'agent-schedule-bench cluster' });
  pool.on('error', () => undefined);
  return pool as pg.Pool & SqlPool;
}

export async function dropSchemas(pool: pg.Pool): Promise<void> {
  for (const schema of made.splice(0)) await pool.query(`drop schema if exists "${schema}" cascade`);
}

/** Each shard's owner while its lease holds by the database's clock (null when free or expired). */
export async function liveOwners(pool: pg.Pool, schema: string): Promise<Map<number, string | null>> {
  const { rows } = await pool.query<{ shard: number; owner: string | null }>(
    `select shard, case when expires_at > now() then owner end as owner from "${schema}".shard_leases`,
  );
  return new Map(rows.map((r) => [r.shard, r.owner]));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Resolves once every shard is held by one of `hosts` and their shares differ by at most one
 * (86/85/85 for three), as the keepers settle; rejects after `timeoutMs`.
 */
export async function waitSettled(pool: pg.Pool, schema: string, hosts: readonly string[], timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const owners = await liveOwners(pool, schema).catch(() => new Map<number, string | null>());
    const counts = hosts.map((h) => [...owners.values()].filter((o) => o === h).length);
    if (counts.reduce((a, b) => a + b, 0) === 256 && Math.max(...counts) - Math.min(...counts) <= 1) return;
    if (performance.now() > deadline)
      throw new Error(`shares did not settle in ${schema}: ${hosts.map((h, i) => `${h}=${counts[i]}`).join(' ')}`);
    await sleep(50);
  }
}

/** Who owns each Session of `sessions` now (by `shard_leases` and the documented Session → shard hash); unowned ones are left out. */
export async function ownersOf(pool: pg.Pool, schema: string, sessions: readonly string[]): Promise<Map<string, string>> {
  const owners = await liveOwners(pool, schema);
  const found = new Map<string, string>();
  for (const session of sessions) {
    const owner = owners.get(shardOf(session));
    if (owner !== null && owner !== undefined) found.set(session, owner);
  }
  return found;
}
