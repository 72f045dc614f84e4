// The Host's HTTP application: once shutdown began every request is refused (503
// `host_stopping`); then the probes (`/healthz`, `/readyz`: probeRoutes.ts), safety checks, then
// `GET /metrics` and the API routes (with `GET /api/cluster`,
// who holds which shards, and in `/api/status` this replica's `hostId` on PostgreSQL), the test clock (only
// when there is one), the live events, the inspector and the web page. Failures thrown anywhere
// become JSON `{code, message}` with the matching status; a client that went away mid-request is
// logged as one quiet line, and only unexpected failures as internal errors.
import { Hono } from 'hono';
import { type Logger, ScheduleError } from '../../src/index.ts';
import type { ManualClock } from '../../src/testing.ts';
import type { HostLimits } from '../limits.ts';
import type { HostStack } from '../stack.ts';
import { bulkRoutes } from './bulkRoutes.ts';
import { clusterRoute } from './clusterRoute.ts';
import { createEventHub } from './eventHub.ts';
import { eventsRoute } from './eventsRoute.ts';
import { HostHttpError, sendFailure } from './failures.ts';
import { inspectRoutes } from './inspectRoutes.ts';
import { createLiveStreams, type StreamStats } from './liveStreams.ts';
import { clientWentAway } from './nodeBindings.ts';
import { previewRoutes } from './previewRoutes.ts';
import { metricsRoute, probeRoutes } from './probeRoutes.ts';
import { remoteRoutes } from './remoteRoutes.ts';
import { bodyDeadline, guardIdentity, type HostIdentity, limitBody } from './requestGuards.ts';
import { staticRoutes } from './staticRoutes.ts';
import { testClockRoute } from './testClockRoute.ts';
import { toolRoutes } from './toolRoutes.ts';

export interface HostAppOptions {
  readonly stack: HostStack;
  readonly identity: HostIdentity;
  readonly logger: Logger;
  readonly limits: HostLimits;
  /** Present only in test-clock mode. */
  readonly testClock?: ManualClock;
}

/** The application and what must happen when the server stops. */
export interface HostApp {
  readonly app: Hono;
  /** Refuses every request from now on, ends the live event and inspector streams and stops listening to the stack. */
  close(): void;
  /** The open live streams and the bytes waiting for their clients. */
  streams(): StreamStats;
}

/** Builds the Hono application over a running stack. */
export function createHostApp(options: HostAppOptions): HostApp {
  const { stack, logger } = options;
  const hub = createEventHub(stack);
  const streams = createLiveStreams({ maxStreams: options.limits.maxStreams, logger });
  const app = new Hono();
  let stopping = false;

  app.use('*', async (c, next) => {
    if (stopping) {
      c.header('connection', 'close');
      c.header('x-content-type-options', 'nosniff');
      return sendFailure(c, 'host_stopping', 'The Host is shutting down; try again once it is back.');
    }
    await next();
    c.header('x-content-type-options', 'nosniff');
  });
  probeRoutes(app, stack);
  app.use('*', guardIdentity(options.identity));
  app.use('/api/*', bodyDeadline(options.limits.bodyTimeoutMs));
  app.use('/api/*', limitBody);

  app.get('/api/status', (c) =>
    c.json({
      now: new Date(stack.clock.now()).toISOString(),
      testClock: options.testClock !== undefined,
      ...(stack.cluster === undefined ? {} : { hostId: stack.cluster.hostId }),
    }),
  );
  metricsRoute(app, stack);
  remoteRoutes(app, stack);
  bulkRoutes(app, stack);
  clusterRoute(app, stack);
  toolRoutes(app, stack);
  previewRoutes(app, stack);
  if (options.testClock !== undefined) testClockRoute(app, stack, options.testClock, hub);
  eventsRoute(app, hub, streams, options.limits.streamBacklogBytes);
  inspectRoutes(app, stack, streams, options.limits.streamBacklogBytes);
  staticRoutes(app);

  app.notFound((c) => sendFailure(c, 'route_not_found', `No route ${c.req.method} ${c.req.path}.`));
  app.onError((error, c) => {
    if (error instanceof HostHttpError || error instanceof ScheduleError) {
      // The rest of a body that timed out may still be on its way: the connection is not reused.
      if (error.code === 'request_timeout') c.header('connection', 'close');
      return sendFailure(c, error.code, error.message);
    }
    if (clientWentAway(c, error)) {
      logger.warn(
        `HTTP ${c.req.method} ${c.req.path}: the request was cut off before it was complete (the client went away or it timed out).`,
      );
      return sendFailure(c, 'invalid_request', 'The request ended before its body was complete.');
    }
    logger.error(`HTTP ${c.req.method} ${c.req.path} failed.`, { cause: error });
    return sendFailure(c, 'internal_error', 'The schedule operation failed.');
  });

  return {
    app,
    close() {
      stopping = true;
      streams.close();
      hub.close();
    },
    streams: () => streams.stats(),
  };
}
