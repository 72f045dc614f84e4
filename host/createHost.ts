// `createHost`: the reference Host as one composable value — the scheduling stack (service, JSON
// domain, file-backed Sessions) behind the HTTP API and the web task page, listening on
// loopback by default. `npm start` runs it; tests start it in-process on an ephemeral port with
// a test clock. `close()` stops the server, then closes the service (draining accepted work).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { Hono } from 'hono';
import type { Clock, Logger, ScheduleConfig, ScheduleInspector, ScheduleService } from '../src/index.ts';
import { createManualClock, type ManualClock } from '../src/testing.ts';
import { createHostApp } from './http/app.ts';
import { hostIdentity } from './http/requestGuards.ts';
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
  /** Default 127.0.0.1 (loopback only). */
  readonly hostname?: string;
  /**
   * Test-clock mode: the Host runs on a manual clock starting at this RFC 3339 instant and
   * exposes `POST /api/test/clock`. Off unless given.
   */
  readonly testClock?: string;
  /** Default: the system clock (ignored in test-clock mode). */
  readonly clock?: Clock;
  readonly logger?: Logger;
  readonly config?: ScheduleConfig;
  /** Whether the demo agent answers delivered reminders (default true). */
  readonly demoAgent?: boolean;
}

/** A running Host. */
export interface Host {
  /** `http://<host>:<port>`, without a trailing slash. */
  readonly url: string;
  readonly service: ScheduleService;
  readonly sessions: FileSessions;
  readonly clock: Clock;
  /** The live inspector of the service's actor system (what `GET /api/inspect` shows). */
  readonly inspector: ScheduleInspector;
  /** The manual clock in test-clock mode. */
  readonly testClock: ManualClock | undefined;
  /** Stops accepting requests, ends live streams, closes the service and waits for the Sessions. */
  close(): Promise<void>;
}

const consoleLogger: Logger = {
  warn: (msg, data) => console.warn(msg, data ?? ''),
  error: (msg, data) => console.error(msg, data ?? ''),
};

/** Starts a Host and resolves once it listens. */
export async function createHost(options: HostOptions): Promise<Host> {
  const logger = options.logger ?? consoleLogger;
  const testClock = options.testClock === undefined ? undefined : createManualClock(options.testClock);
  const clock = testClock ?? options.clock;
  const stack = await openHostStack({
    dataDir: options.dataDir,
    logger,
    ...(clock === undefined ? {} : { clock }),
    ...(options.config === undefined ? {} : { config: options.config }),
    ...(options.demoAgent === undefined ? {} : { demoAgent: options.demoAgent }),
  });
  testClock?.attach(stack.service);

  const hostname = options.hostname ?? DEFAULT_HOSTNAME;
  let app: Hono | undefined;
  const server = createAdaptorServer({ fetch: (request: Request) => app?.fetch(request) ?? new Response(null, { status: 503 }) });
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
  const http = createHostApp({ stack, logger, identity: hostIdentity(hostname, port), ...(testClock === undefined ? {} : { testClock }) });
  app = http.app;

  const urlHost = hostname.includes(':') ? `[${hostname}]` : hostname === '0.0.0.0' ? DEFAULT_HOSTNAME : hostname;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    service: stack.service,
    sessions: stack.sessions,
    clock: stack.clock,
    inspector: stack.inspector,
    testClock,
    close() {
      closing ??= (async () => {
        stopping = true;
        http.close();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        if ('closeIdleConnections' in server) server.closeIdleConnections();
        await stopped;
        await stack.close();
      })();
      return closing;
    },
  };
}
