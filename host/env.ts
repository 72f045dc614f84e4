// The Host's settings from the environment of `npm start`: PORT, HOST, DATA_DIR, ALLOWED_HOSTS,
// the limits MAX_CONNECTIONS, MAX_STREAMS, STREAM_BACKLOG_BYTES and SHUTDOWN_GRACE_MS, the
// opt-in SCHEDULE_TEST_CLOCK, INSPECT_WS (a WebSocket server, such as the Stately Inspector's
// relay, that gets the actor system's inspection events), and DATABASE_URL (keep the schedule and
// the transcripts in PostgreSQL, in the schema DATABASE_SCHEMA, default agent_schedule, as one
// replica of a cluster: HOST_ID names the replica, default one made up at start; LEASE_MS is how
// long its shard leases last without renewal, default 15000). Anything
// malformed is refused with a message naming the variable, and so is a HOST that binds every
// interface (0.0.0.0, ::) without ALLOWED_HOSTS.
import { resolve } from 'node:path';
import { isWildcardAddress, parseAllowedHosts } from '../src/console/index.ts';
import { DEFAULT_HOSTNAME, DEFAULT_PORT, type HostOptions } from './createHost.ts';
import { type HostDatabaseOptions, parseDatabaseUrl, withDefaultUser } from './database.ts';
import type { HostLimits } from './limits.ts';

/** Where `npm start` keeps its data unless DATA_DIR says otherwise. */
export const DEFAULT_DATA_DIR = './data';

/** The limits `npm start` reads from the environment, by variable. */
const LIMIT_VARIABLES = {
  MAX_CONNECTIONS: 'maxConnections',
  MAX_STREAMS: 'maxStreams',
  STREAM_BACKLOG_BYTES: 'streamBacklogBytes',
  SHUTDOWN_GRACE_MS: 'shutdownGraceMs',
} as const satisfies Record<string, keyof HostLimits>;

function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<Record<keyof HostLimits, number>> {
  const limits: Partial<Record<keyof HostLimits, number>> = {};
  for (const [variable, limit] of Object.entries(LIMIT_VARIABLES)) {
    const text = env[variable];
    if (text === undefined || text === '') continue;
    const value = /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
    if (!(value > 0)) throw new Error(`${variable} must be a positive whole number; got ${JSON.stringify(text.slice(0, 100))}.`);
    limits[limit] = value;
  }
  return limits;
}

/** INSPECT_WS as a normalized `ws:` or `wss:` URL with a host and no credentials; throws naming the variable. */
export function parseInspectWs(text: string): string {
  const refuse = (why: string): never => {
    throw new Error(`INSPECT_WS must be a WebSocket URL such as ws://localhost:8080 (${why}); got ${JSON.stringify(text.slice(0, 200))}.`);
  };
  if (!/^wss?:\/\//i.test(text.trim())) refuse('it must start with ws:// or wss://');
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return refuse('not a URL');
  }
  if (url.hostname === '') refuse('it names no host');
  if (url.username !== '' || url.password !== '') refuse('it must not carry credentials');
  if (url.hash !== '') refuse('it must not have a fragment');
  return url.href;
}

/** Host options from environment variables; throws an Error naming a malformed variable. */
export function hostOptionsFromEnv(env: NodeJS.ProcessEnv): HostOptions {
  const portText = env.PORT ?? String(DEFAULT_PORT);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) throw new Error(`PORT must be a port number from 0 to 65535; got ${JSON.stringify(portText)}.`);
  const testClock = env.SCHEDULE_TEST_CLOCK || undefined;
  if (testClock !== undefined && !Number.isFinite(Date.parse(testClock)))
    throw new Error(`SCHEDULE_TEST_CLOCK must be an RFC 3339 instant such as 2030-01-01T09:00:00Z; got ${JSON.stringify(testClock)}.`);
  const hostname = env.HOST || DEFAULT_HOSTNAME;
  let allowedHosts: string[] | undefined;
  if (env.ALLOWED_HOSTS !== undefined && env.ALLOWED_HOSTS.trim() !== '') {
    try {
      allowedHosts = parseAllowedHosts(env.ALLOWED_HOSTS);
    } catch (error) {
      throw new Error(`ALLOWED_HOSTS: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (isWildcardAddress(hostname) && allowedHosts === undefined)
    throw new Error(
      `HOST=${hostname} listens on every interface, so ALLOWED_HOSTS must list the host names clients use to reach the Host ` +
        '(comma-separated, optionally with ports, e.g. ALLOWED_HOSTS=schedule.lan,192.168.1.20); without it the Host could not ' +
        'tell its own name from a rebound one, and a page on any site could reach it.',
    );
  const limits = limitsFromEnv(env);
  const inspectWs = env.INSPECT_WS === undefined || env.INSPECT_WS.trim() === '' ? undefined : parseInspectWs(env.INSPECT_WS);
  const database = databaseFromEnv(env);
  return {
    dataDir: resolve(env.DATA_DIR || DEFAULT_DATA_DIR),
    port,
    hostname,
    ...(allowedHosts === undefined ? {} : { allowedHosts }),
    ...(Object.keys(limits).length === 0 ? {} : { limits }),
    ...(testClock === undefined ? {} : { testClock }),
    ...(inspectWs === undefined ? {} : { inspectWs }),
    ...(database === undefined ? {} : { database }),
  };
}

/** DATABASE_URL and DATABASE_SCHEMA, or undefined without a DATABASE_URL; throws naming a malformed variable. */
function databaseFromEnv(env: NodeJS.ProcessEnv): HostDatabaseOptions | undefined {
  if (env.DATABASE_URL === undefined || env.DATABASE_URL.trim() === '') return undefined;
  const url = withDefaultUser(parseDatabaseUrl(env.DATABASE_URL), env);
  const schema = env.DATABASE_SCHEMA?.trim() || undefined;
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))
    throw new Error(
      `DATABASE_SCHEMA must be a plain identifier (letters, digits and _, at most 63, not starting with a digit); got ${JSON.stringify(schema.slice(0, 100))}.`,
    );
  const hostId = env.HOST_ID?.trim() || undefined;
  if (hostId !== undefined && !/^[A-Za-z0-9._:@-]{1,200}$/.test(hostId))
    throw new Error(
      `HOST_ID must be 1 to 200 letters, digits or . _ : @ - (unique among the replicas on the schema); got ${JSON.stringify(hostId.slice(0, 100))}.`,
    );
  const leaseText = env.LEASE_MS?.trim() || undefined;
  const leaseMs = leaseText === undefined ? undefined : /^\d{1,8}$/.test(leaseText) ? Number(leaseText) : Number.NaN;
  if (leaseMs !== undefined && !(leaseMs >= 3000 && leaseMs <= 86_400_000))
    throw new Error(
      `LEASE_MS must be a whole number of milliseconds from 3000 to 86400000; got ${JSON.stringify(leaseText?.slice(0, 100))}.`,
    );
  return {
    url,
    ...(schema === undefined ? {} : { schema }),
    ...(hostId === undefined ? {} : { hostId }),
    ...(leaseMs === undefined ? {} : { leaseMs }),
  };
}
