// The reference Host on PostgreSQL (DATABASE_URL): one pool for both the schedule (the library's
// `postgresStorage`) and the Sessions' transcripts (sessions/postgresSessions.ts), in one schema
// (`agent_schedule` unless DATABASE_SCHEMA names another). The transcript tables are created at
// start when missing. Several Host processes can open the same database: any of them can deliver
// into any Session.
import { userInfo } from 'node:os';
import { createPgPool, DEFAULT_SCHEMA, postgresStorage, type SqlPool } from '../src/adapters/postgres/index.ts';
import type { ScheduleStorage } from '../src/index.ts';
import type { FileSessions } from './sessions/fileSessions.ts';
import { createPostgresSessions } from './sessions/postgresSessions.ts';
import { createTranscriptTables } from './sessions/postgresTranscripts.ts';

/** Where a Host on PostgreSQL keeps its schedule and transcripts: a `postgres://` URL or a pool of the caller's. */
export interface HostDatabaseOptions {
  /** A `postgres://` URL; the Host then makes (and ends on close) its own pool. */
  readonly url?: string;
  /** A pool to use instead (never ended by the Host). */
  readonly pool?: SqlPool;
  /** Default `agent_schedule`. */
  readonly schema?: string;
}

/** The `application_name` of the Host's connections. */
export const HOST_APPLICATION_NAME = 'agent-schedule host';

/** The schedule storage and Sessions on one database. */
export interface HostDatabase {
  readonly schema: string;
  readonly storage: ScheduleStorage;
  readonly sessions: FileSessions;
  /** Ends the Host's own pool (after the service and the Sessions are closed). */
  close(): Promise<void>;
}

/** A URL as the log may show it: without its password. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.href;
  } catch {
    return '(unparsable URL)';
  }
}

/**
 * The URL with a user name when it names none and neither PGUSER nor USER is set: the name of the
 * operating-system user, as libpq (psql) takes it; without one `pg` would send no user at all.
 */
export function withDefaultUser(url: string, env: NodeJS.ProcessEnv): string {
  const parsed = new URL(url);
  if (parsed.username !== '' || env.PGUSER || env.USER) return url;
  parsed.username = encodeURIComponent(userInfo().username);
  return parsed.href;
}

/** DATABASE_URL checked to be a `postgres://` or `postgresql://` URL; throws naming the variable. */
export function parseDatabaseUrl(text: string): string {
  const trimmed = text.trim();
  let valid = /^postgres(?:ql)?:\/\//i.test(trimmed);
  try {
    new URL(trimmed);
  } catch {
    valid = false;
  }
  if (!valid)
    throw new Error(
      `DATABASE_URL must be a PostgreSQL URL such as postgres://user@127.0.0.1:5432/dbname; got ${JSON.stringify(redactDatabaseUrl(trimmed).slice(0, 200))}.`,
    );
  return trimmed;
}

/** Opens the pool (unless given), creates the transcript tables when missing, and makes the storage and Sessions. */
export async function openHostDatabase(
  options: HostDatabaseOptions,
  sessions: { readonly now: () => number; readonly demoAgent?: boolean },
): Promise<HostDatabase> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const own = options.pool === undefined;
  if (own && options.url === undefined) throw new Error('A Host on PostgreSQL needs a database URL or a pool.');
  const pool =
    options.pool ??
    (await createPgPool({ connectionString: options.url ?? '', applicationName: HOST_APPLICATION_NAME, queryTimeoutMs: 30_000 }));
  const end = async () => {
    if (own) await pool.end().catch(() => undefined);
  };
  try {
    await createTranscriptTables(pool, schema);
  } catch (error) {
    await end();
    throw error;
  }
  return {
    schema,
    storage: postgresStorage({ pool, schema, applicationName: HOST_APPLICATION_NAME }),
    sessions: createPostgresSessions({ pool, schema, ...sessions }),
    close: end,
  };
}
