// The console as one Web-standard handler: once `close()` was called every request is refused
// (503 `host_stopping`); then the probes (`/healthz`, `/readyz`: probeRoutes.ts), the `Host` and
// `Origin` checks, `authorize`, the body limits, then `GET /metrics`, the API routes, the live
// events, the inspector and the web page. Under a `basePath` every route lives below it, the bare
// base path redirects to the page (`/schedule` → `/schedule/`, so the page's relative URLs
// resolve) and anything outside it is not found. Failures thrown anywhere become JSON
// `{code, message}` with the matching status; a client that went away mid-request is logged as
// one quiet line, and only unexpected failures as internal errors.
import { Hono } from 'hono';
import { ScheduleError, systemClock } from '../index.ts';
import { loopbackOnly, noteClientAddress, sessionOfRequest } from './authorize.ts';
import { bulkRoutes } from './bulkRoutes.ts';
import { clusterRoute, ownerHeaders } from './clusterRoute.ts';
import type { ConsoleContext } from './context.ts';
import { createEventHub } from './eventHub.ts';
import { eventsRoute } from './eventsRoute.ts';
import { ConsoleHttpError, sendFailure } from './failures.ts';
import { inspectRoutes } from './inspectRoutes.ts';
import { consoleLimits } from './limits.ts';
import { createLiveStreams } from './liveStreams.ts';
import { clientWentAway } from './nodeBindings.ts';
import { type Console, type ConsoleOptions, clusterOf } from './options.ts';
import { previewRoutes } from './previewRoutes.ts';
import { metricsRoute, probeRoutes } from './probeRoutes.ts';
import { remoteRoutes } from './remoteRoutes.ts';
import { bodyDeadline, consoleIdentity, guardIdentity, limitBody } from './requestGuards.ts';
import { isConsoleSessionId } from './sessionId.ts';
import { staticRoutes } from './staticRoutes.ts';
import { toolRoutes } from './toolRoutes.ts';

const defaultLogger = {
  warn: (msg: string, data?: unknown) => console.warn(msg, data ?? ''),
  error: (msg: string, data?: unknown) => console.error(msg, data ?? ''),
};

/** `basePath` as `/a/b` (no trailing slash), or '' for none; throws for one that is not a plain path. */
function normalizeBase(basePath: string | undefined): string {
  const base = (basePath ?? '').replace(/\/+$/, '');
  if (base !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(base))
    throw new Error(`basePath must be a path such as /schedule; got ${JSON.stringify(basePath?.slice(0, 100))}.`);
  return base;
}

/** Builds the console over a running service; see ConsoleOptions. */
export function createConsole(options: ConsoleOptions): Console {
  const base = normalizeBase(options.basePath);
  const logger = options.logger ?? defaultLogger;
  const clock = options.clock ?? systemClock;
  const ctx: ConsoleContext = {
    service: options.service,
    inspector: options.inspector,
    transcripts: options.transcripts,
    metrics: options.metrics,
    logger,
    limits: consoleLimits(options.limits),
    now: () => clock.now(),
    isSessionId: options.isSessionId ?? isConsoleSessionId,
  };
  const identity = consoleIdentity(options.allowedHosts, options.allowedOrigins);
  const authorize = options.authorize ?? loopbackOnly;
  const hub = createEventHub(ctx.service, ctx.transcripts);
  const streams = createLiveStreams({ maxStreams: ctx.limits.maxStreams, logger });
  // Routes see the path below the base path (Hono's own reading of the path, less the base).
  const routed = new Hono().getPath;
  const app = base === '' ? new Hono() : new Hono({ getPath: (request, o) => routed(request, o).slice(base.length) || '/' });
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
  probeRoutes(app, ctx.service);
  app.use('*', guardIdentity(identity));
  const cluster = clusterOf(ctx.service);
  app.use('*', async (c, next) => {
    const sessionId = sessionOfRequest(c.req.path, new URL(c.req.url));
    if (!(await authorize(c.req.raw, sessionId)))
      return sendFailure(c, 'not_authorized', 'This client may not use the console; the Host decides who may (authorize).');
    await next();
    // A load balancer sends this Session's next calls to its owner, where they need no routing.
    if (cluster !== undefined && sessionId !== undefined) await ownerHeaders(c, cluster, sessionId);
  });
  app.use('/api/*', bodyDeadline(ctx.limits.bodyTimeoutMs));
  app.use('/api/*', limitBody(ctx.limits.maxBodyBytes));

  app.get('/api/status', (c) =>
    c.json({
      now: new Date(ctx.now()).toISOString(),
      testClock: false,
      transcripts: ctx.transcripts !== undefined,
      inspector: ctx.inspector !== undefined,
      ...(cluster === undefined ? {} : { hostId: cluster.hostId }),
      ...options.status?.(),
    }),
  );
  metricsRoute(app, ctx.metrics);
  const closeSessionIndex = remoteRoutes(app, ctx);
  bulkRoutes(app, ctx.service);
  clusterRoute(app, ctx.service);
  toolRoutes(app, ctx.service);
  previewRoutes(app, ctx);
  eventsRoute(app, hub, streams, ctx.limits.streamBacklogBytes);
  inspectRoutes(app, ctx, streams);
  for (const route of options.routes ?? []) app.on(route.method, route.path, (c) => route.handle(c.req.raw));
  staticRoutes(app);

  app.notFound((c) => sendFailure(c, 'route_not_found', `No route ${c.req.method} ${base}${c.req.path}.`));
  app.onError((error, c) => {
    if (error instanceof ConsoleHttpError || error instanceof ScheduleError) {
      // The rest of a body that timed out may still be on its way: the connection is not reused.
      if (error.code === 'request_timeout') c.header('connection', 'close');
      return sendFailure(c, error.code, error.message);
    }
    if (clientWentAway(c, error)) {
      logger.warn(
        `HTTP ${c.req.method} ${base}${c.req.path}: the request was cut off before it was complete (the client went away or it timed out).`,
      );
      return sendFailure(c, 'invalid_request', 'The request ended before its body was complete.');
    }
    logger.error(`HTTP ${c.req.method} ${base}${c.req.path} failed.`, { cause: error });
    return sendFailure(c, 'internal_error', 'The schedule operation failed.');
  });

  const outside = (path: string) =>
    Response.json(
      { code: 'route_not_found', message: `No route ${path}: the console lives under ${base}/.` },
      { status: 404, headers: { 'x-content-type-options': 'nosniff' } },
    );

  return {
    async fetch(request, env) {
      noteClientAddress(request, env);
      if (base !== '') {
        const url = new URL(request.url);
        if (url.pathname === base && (request.method === 'GET' || request.method === 'HEAD') && !stopping)
          return new Response(null, { status: 308, headers: { location: `${base}/${url.search}` } });
        if (!url.pathname.startsWith(`${base}/`)) return outside(url.pathname);
      }
      return app.fetch(request, env);
    },
    emit: (event) => hub.emit(event),
    close() {
      stopping = true;
      streams.close();
      hub.close();
      closeSessionIndex();
    },
    streams: () => streams.stats(),
  };
}
