// The `pg` pool the PostgreSQL storage and `agent-schedule migrate` make for a connection string.
// `pg` is loaded only here, when such a pool is made, so `agent-schedule/postgres` works with a
// pool of the Host's own (or an embedded PostgreSQL) without `pg` installed.
import { ScheduleError } from '../../domain/errors.ts';
import { type SqlPool, watchPoolErrors } from './driver.ts';
import { type MigrationResult, migrate } from './migrations.ts';

/** How to make a pool. */
export interface PgPoolOptions {
  readonly connectionString: string;
  /** `application_name` of its connections (shown in `pg_stat_activity`). */
  readonly applicationName: string;
  /** Client-side limit on one statement, in ms. */
  readonly queryTimeoutMs: number;
  /** The most connections at once (default `pg`'s 10). */
  readonly max?: number;
}

/**
 * A `pg.Pool` for `connectionString`.
 *
 * @throws ScheduleError `internal_error` when `pg` is not installed.
 */
export async function createPgPool(options: PgPoolOptions): Promise<SqlPool> {
  let Pool: typeof import('pg').Pool;
  try {
    ({ Pool } = await import('pg'));
  } catch (error) {
    throw new ScheduleError('internal_error', 'A PostgreSQL connection string needs the `pg` package: npm install pg', { cause: error });
  }
  const pool = new Pool({
    connectionString: options.connectionString,
    application_name: options.applicationName,
    connectionTimeoutMillis: 10_000,
    query_timeout: options.queryTimeoutMs,
    ...(options.max === undefined ? {} : { max: options.max }),
  });
  // A connection the server closes must never crash the process: the pool drops an idle one, and
  // whoever uses one learns of it from the query that fails.
  watchPoolErrors(pool as unknown as SqlPool);
  return pool as unknown as SqlPool;
}

/**
 * Brings the schema of the database at `connectionString` up to date (what `agent-schedule
 * migrate` runs; a storage does the same at open).
 *
 * @throws ScheduleError `corrupt_schedule_log` for a schema newer than this code, `persistence_uncertain`
 *   when the database cannot be reached.
 */
export async function migrateDatabase(connectionString: string, schema: string): Promise<MigrationResult> {
  const pool = await createPgPool({ connectionString, applicationName: 'agent-schedule migrate', queryTimeoutMs: 300_000 });
  try {
    let client: Awaited<ReturnType<SqlPool['connect']>>;
    try {
      client = await pool.connect();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ScheduleError('persistence_uncertain', `Cannot reach the database (${reason}); nothing was changed.`, { cause: error });
    }
    let broken: Error | undefined;
    try {
      return await migrate(client, schema);
    } catch (error) {
      if (error instanceof Error && !(error instanceof ScheduleError)) broken = error;
      throw error;
    } finally {
      client.release(broken);
    }
  } finally {
    await pool.end().catch(() => undefined);
  }
}
