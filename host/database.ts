// The reference Host on PostgreSQL (DATABASE_URL): one pool for both the schedule (the library's
// `createClusterService`, run by stack.ts) and the Sessions' transcripts
// (sessions/postgresSessions.ts), in one schema (`agent_schedule` unless DATABASE_SCHEMA names
// another). The transcript tables are created at start when missing. Several Host processes
// (replicas) can open the same database: each is a cluster member under its own Host id (HOST_ID,
// or one made up at start), holding its share of the shards and delivering their reminders; any
// of them answers for any Session.
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { createPgPool, DEFAULT_SCHEMA, MEMBER_POOL_SIZE, type NotificationListener, type SqlPool } from '../src/entries/postgres.ts';
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
  /** This replica's id among the Hosts on the schema (HOST_ID); default {@link generatedHostId}'s. */
  readonly hostId?: string;
  /** How long a shard lease lasts without renewal, in ms (LEASE_MS; default the cluster's, 15000). */
  readonly leaseMs?: number;
  /** How notifications arrive (default: a connection of the pool; PGlite in tests needs its own). */
  readonly listen?: NotificationListener;
  /** False: the shard keeper does not run on its own and the caller steps it (`cluster.step()`); default true. */
  readonly autoStart?: boolean;
  /** Where the shard keeper's statements run (default: a connection of the pool held for it; a one-connection pool passes itself). */
  readonly keeperPool?: SqlPool;
}

/** A Host id unique among running processes: the machine's name, the process id and random bits. */
export function generatedHostId(): string {
  const machine =
    hostname()
      .replace(/[^A-Za-z0-9._-]/g, '')
      .slice(0, 40) || 'host';
  return `${machine}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** The `application_name` of the Host's connections. */
export const HOST_APPLICATION_NAME = 'agent-schedule host';

/** The pool and Sessions on one database. */
export interface HostDatabase {
  readonly schema: string;
  readonly pool: SqlPool;
  /** This replica's Host id. */
  readonly hostId: string;
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

/** Connections of the Host's own pool kept for its Sessions' transcripts, beside the schedule's. */
const TRANSCRIPT_CONNECTIONS = 4;

/** Opens the pool (unless given), creates the transcript tables when missing, and makes the Sessions (recording `hostId` with what they write). */
export async function openHostDatabase(
  options: HostDatabaseOptions,
  sessions: { readonly now: () => number; readonly demoAgent?: boolean },
): Promise<HostDatabase> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const own = options.pool === undefined;
  if (own && options.url === undefined) throw new Error('A Host on PostgreSQL needs a database URL or a pool.');
  const pool =
    options.pool ??
    (await createPgPool({
      connectionString: options.url ?? '',
      applicationName: HOST_APPLICATION_NAME,
      queryTimeoutMs: 30_000,
      // The cluster member's connections, and a few for the transcripts' reads and writes.
      max: MEMBER_POOL_SIZE + TRANSCRIPT_CONNECTIONS,
    }));
  const end = async () => {
    if (own) await pool.end().catch(() => undefined);
  };
  try {
    await createTranscriptTables(pool, schema);
  } catch (error) {
    await end();
    throw error;
  }
  const hostId = options.hostId ?? generatedHostId();
  return {
    schema,
    pool,
    hostId,
    sessions: createPostgresSessions({ pool, schema, hostId, ...sessions }),
    close: end,
  };
}
