// `agent-schedule/postgres`: the storage on PostgreSQL, its migrations and the driver seam. A
// separate entry point, so a Host on the JSON file storage never loads (or installs) `pg`.
export { isConnectionFailure, type SqlClient, type SqlPool, type SqlResult } from './driver.ts';
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
