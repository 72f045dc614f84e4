// `agent-schedule/postgres`: the storage on PostgreSQL — one Host's, or with `cluster` one many
// Hosts share, which `createScheduleService` and `scheduleSupervisor` join — its migrations, shard
// leases and fenced commits, cluster membership, the shard keeper and the call router, the driver
// seam, and `createClusterService` (the member a shared storage runs; kept for one release as a
// direct way in). A separate entry point, so a Host on the JSON file storage never loads (or
// installs) `pg`; an entry file above both folders, since src/cluster imports the adapter and
// never the reverse.

export {
  CallNotRunError,
  CallRouter,
  type CallRouterOptions,
  callRouter,
  type JsonValue,
  type NotificationListener,
  poolListener,
  type RoutedRequest,
} from '../adapters/postgres/callRouter.ts';
export { ChangeFeed, type ChangeFeedOptions, changeFeed, type FeedChange } from '../adapters/postgres/changeFeed.ts';
export { ClusterHosts, type ClusterHostsOptions, type ClusterView } from '../adapters/postgres/clusterHosts.ts';
export {
  guardedPool,
  isConnectionFailure,
  type NamedStatement,
  type SqlClient,
  type SqlPool,
  type SqlResult,
  statementText,
} from '../adapters/postgres/driver.ts';
export { checkFence, type LeaseFence, LeaseLostError } from '../adapters/postgres/fence.ts';
export { MIGRATIONS, type Migration, type MigrationResult, migrate, quoteSchema, SCHEMA_VERSION } from '../adapters/postgres/migrations.ts';
export { createPgPool, migrateDatabase, type PgPoolOptions } from '../adapters/postgres/pgPool.ts';
export {
  DEFAULT_APPLICATION_NAME,
  DEFAULT_SCHEMA,
  PostgresStorage,
  type PostgresStorageOptions,
} from '../adapters/postgres/postgresStorage.ts';
export {
  DEFAULT_LEASE_MS,
  hostShare,
  type KeeperTimers,
  ShardKeeper,
  type ShardKeeperOptions,
  shardKeeper,
} from '../adapters/postgres/shardKeeper.ts';
export {
  type AcquireRequest,
  fairShare,
  fenceEpochs,
  MAX_LEASE_MS,
  type ShardLease,
  ShardLeases,
  type ShardLeasesOptions,
  shardLeases,
} from '../adapters/postgres/shardLeases.ts';
export { DEFAULT_OWNER_LEASE_MS, type SchemaHolder, SchemaLockedError } from '../adapters/postgres/storageOwner.ts';
export { type ClusterService, type ClusterServiceOptions, createClusterService } from '../cluster/clusterService.ts';
export {
  type ClusterOptions,
  type ClusterStorageOptions,
  MEMBER_POOL_SIZE,
  postgresStorage,
} from '../cluster/clusterStorage.ts';
export { shardOf } from '../domain/tasks/sessionShard.ts';
export type { StepReport } from '../ports.ts';
