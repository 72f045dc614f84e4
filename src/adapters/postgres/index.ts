// `agent-schedule/postgres`: the storage on PostgreSQL, its migrations, shard leases and fenced
// commits, and the driver seam. A separate entry point, so a Host on the JSON file storage never
// loads (or installs) `pg`.
export { isConnectionFailure, type SqlClient, type SqlPool, type SqlResult } from './driver.ts';
export { checkFence, type LeaseFence, LeaseLostError } from './fence.ts';
export { MIGRATIONS, type Migration, type MigrationResult, migrate, SCHEMA_VERSION } from './migrations.ts';
export { createPgPool, migrateDatabase, type PgPoolOptions } from './pgPool.ts';
export {
  DEFAULT_APPLICATION_NAME,
  DEFAULT_SCHEMA,
  PostgresStorage,
  type PostgresStorageOptions,
  postgresStorage,
} from './postgresStorage.ts';
export { shardOf } from './rowColumns.ts';
export {
  type AcquireRequest,
  fairShare,
  fenceEpochs,
  MAX_LEASE_MS,
  type ShardLease,
  ShardLeases,
  type ShardLeasesOptions,
  shardLeases,
} from './shardLeases.ts';
