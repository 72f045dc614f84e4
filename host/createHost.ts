// `createHost`: the reference Host as one composable value — the scheduling stack (service, JSON
// domain, file-backed Sessions; or, with `database`, one replica of a cluster on PostgreSQL)
// behind the console (`agent-schedule/console`: the HTTP API and the web task page, mounted at the
// root of a Node server), listening on loopback by default. `npm start` runs it; tests start it
// in-process on an ephemeral port with a test clock. The Node server gets the Host's limits
// (limits.ts): a connection cap, header, request, body, keep-alive and idle timeouts. `close()` refuses new requests and streams, ends
// the open streams, closes the connections still open after the shutdown grace, then closes the
// service (draining accepted work), so it always finishes.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { type Console, isWildcardAddress } from '../src/console/index.ts';
import type { Clock, Logger, ScheduleCluster, ScheduleConfig, ScheduleInspector, ScheduleService } from '../src/index.ts';
import { createManualClock, type ManualClock } from '../src/testing.ts';
import type { HostDatabaseOptions } from './database.ts';
import { createHostConsole, hostAllowedHosts } from './hostConsole.ts';
import { type HostLimits, hostLimits } from './limits.ts';
import type { FileSessions } from './sessions/fileSessions.ts';
import { openHostStack } from './stack.ts';

/** Where the Host listens by default. */
export const DEFAULT_HOSTNAME = '127.0.0.1';
export const DEFAULT_PORT = 4319;

export interface HostOptions {
  /** Holds `schedule.json` and the `sessions/` transcripts. */
  readonly dataDir: string;
  /** Default 4319; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1 (loopback only). `0.0.0.0` or `::` (every interface) needs `allowedHosts`. */
  readonly hostname?: string;
  /**
   * Host names the Host answers to besides its loopback names and bound address, each with an
   * optional port (`schedule.lan`, `192.168.1.20:8080`; without one, the Host's port): requests
   * whose `Host` header names another are refused, and so are writes from other origins.
   * Required when `hostname` binds every interface.
   */
  readonly allowedHosts?: readonly string[];
  /** Overrides of the Host's limits ({@link DEFAULT_HOST_LIMITS} in limits.ts). */
  readonly limits?: Partial<HostLimits>;
  /**
   * Test-clock mode: the Host runs on a manual clock starting at this RFC 3339 instant and
   * exposes `POST /api/test/clock`. Off unless given. With `database` each replica has its own
   * manual clock, which drives the shards that replica holds.
   */
  readonly testClock?: string;
  /** Default: the system clock (ignored in test-clock mode). */
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly config?: ScheduleConfig;
  /** Whether the demo agent answers delivered reminders (default true). */
  readonly demoAgent?: boolean;
  /** A WebSocket server (the Stately Inspector's relay) that also gets the inspection events; off unless given. */
  readonly inspectWs?: string;
  /** Keep the schedule and the Sessions' transcripts in PostgreSQL (database.ts) instead of `dataDir`. */
  readonly database?: HostDatabaseOptions;
}

/** A running Host. */
export interface Host {
  /** `http://<host>:<port>`, without a trailing slash. */
  readonly url: string;
  /** The schedule: a `ScheduleService` on files, this replica's `ClusterService` on PostgreSQL. */
  readonly service: ScheduleService;
  /** This replica as a cluster member (database mode only): its Host id, shards, keeper. */
  readonly cluster: ScheduleCluster | undefined;
  readonly sessions: FileSessions;
  readonly clock: Clock;
  /** The live inspector of the service's actor system (what `GET /api/inspect` shows). */
  readonly inspector: ScheduleInspector;
  /** The manual clock in test-clock mode. */
  readonly testClock: ManualClock | undefined;
  /** The limits in force. */
  readonly limits: HostLimits;
  /** Open connections, open live streams and the bytes waiting for their clients. */
  stats(): HostStats;
  /**
   * Stops accepting connections, refuses requests still arriving on open ones (503
   * `host_stopping`), ends live streams, closes the connections still open after
   * `limits.shutdownGraceMs`, closes the service and waits for the Sessions.
   */
  close(): Promise<void>;
}

/** What the Host's clients hold right now. */
export interface HostStats {
  readonly connections: number;
  readonly streams: number;
  readonly backlogBytes: number;
}

const consoleLogger: Logger = {
  warn: (msg, data) => console.warn(msg, data ?? ''),
  error: (msg, data) => console.error(msg, data ?? ''),
};

/** Starts a Host and resolves once it listens. */
export async function createHost(options: HostOptions): Promise<Host> {
  const limits = hostLimits(options.limits);
  const hostname = options.hostname ?? DEFAULT_HOSTNAME;
  // A wildcard bind without an allow-list, or a malformed entry, is refused before the domain opens.
  hostAllowedHosts(hostname, DEFAULT_PORT, options.allowedHosts);
  const logger = options.logger ?? consoleLogger;
  const testClock = options.testClock === undefined ? undefined : createManualClock(options.testClock);
  const clock = testClock ?? options.clock;
  const stack = await openHostStack({
    dataDir: options.dataDir,
    logger,
    ...(clock === undefined ? {} : { clock }),
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.demoAgent === undefined ? {} : { demoAgent: options.demoAgent }),
    ...(options.inspectWs === undefined ? {} : { inspectWs: options.inspectWs }),
    ...(options.database === undefined ? {} : { database: options.database }),
  });
  testClock?.attach(stack.service);

  let handler: Console | undefined;
  const server = createAdaptorServer({
    fetch: (request, env) => handler?.fetch(request, env) ?? new Response(null, { status: 503 }),
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks the header and request deadlines.
      connectionsCheckingInterval: Math.min(
        1_000,
        Math.max(10, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
      ),
    },
  }) as Server;
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleTimeoutMs;
  let connections = 0;
  server.on('connection', (socket) => {
    connections += 1;
    socket.once('close', () => {
      connections -= 1;
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? DEFAULT_PORT, hostname, () => resolve());
    });
  } catch (error) {
    await stack.close();
    throw error;
  }
  // While stopping, a connection closes as soon as its response is done (event streams included).
  let stopping = false;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    response.once('close', () => {
      if (stopping) request.socket.end();
    });
  });
  const { port } = server.address() as AddressInfo;
  const http = createHostConsole({
    stack,
    logger,
    limits,
    allowedHosts: hostAllowedHosts(hostname, port, options.allowedHosts),
    ...(testClock === undefined ? {} : { testClock }),
  });
  handler = http;

  const urlHost = isWildcardAddress(hostname)
    ? hostname.includes(':')
      ? '[::1]'
      : DEFAULT_HOSTNAME
    : hostname.includes(':') && !hostname.startsWith('[')
      ? `[${hostname}]`
      : hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    service: stack.service,
    cluster: stack.cluster,
    sessions: stack.sessions,
    clock: stack.clock,
    inspector: stack.inspector,
    testClock,
    limits,
    stats: () => ({ connections, ...http.streams() }),
    close() {
      closing ??= (async () => {
        stopping = true;
        http.close();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // A stream stuck writing to a client that stopped reading, or a request still arriving,
        // does not hold the shutdown past the grace.
        const force = setTimeout(() => server.closeAllConnections(), limits.shutdownGraceMs);
        try {
          await stopped;
        } finally {
          clearTimeout(force);
        }
        await stack.close();
      })();
      return closing;
    },
  };
}
