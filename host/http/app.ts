// The Host's HTTP application: safety checks first, then the API routes, the test clock (only
// when there is one), the live events, the inspector and the web page; failures thrown anywhere
// become JSON `{code, message}` with the matching status, and unexpected ones are logged as
// internal errors.
import { Hono } from 'hono';
import { type Logger, ScheduleError } from '../../src/index.ts';
import type { ManualClock } from '../../src/testing.ts';
import type { HostStack } from '../stack.ts';
import { createEventHub } from './eventHub.ts';
import { eventsRoute } from './eventsRoute.ts';
import { HostHttpError, sendFailure } from './failures.ts';
import { inspectRoutes } from './inspectRoutes.ts';
import { previewRoutes } from './previewRoutes.ts';
import { remoteRoutes } from './remoteRoutes.ts';
import { guardIdentity, type HostIdentity, limitBody } from './requestGuards.ts';
import { staticRoutes } from './staticRoutes.ts';
import { testClockRoute } from './testClockRoute.ts';
import { toolRoutes } from './toolRoutes.ts';

export interface HostAppOptions {
  readonly stack: HostStack;
  readonly identity: HostIdentity;
  readonly logger: Logger;
  /** Present only in test-clock mode. */
  readonly testClock?: ManualClock;
}

/** The application and what must happen when the server stops. */
export interface HostApp {
  readonly app: Hono;
  /** Ends the live event and inspector streams and stops listening to the stack. */
  close(): void;
}

/** Builds the Hono application over a running stack. */
export function createHostApp(options: HostAppOptions): HostApp {
  const { stack, logger } = options;
  const hub = createEventHub(stack);
  const app = new Hono();

  app.use('*', async (c, next) => {
    await next();
    c.header('x-content-type-options', 'nosniff');
  });
  app.use('*', guardIdentity(options.identity));
  app.use('/api/*', limitBody);

  app.get('/api/status', (c) => c.json({ now: new Date(stack.clock.now()).toISOString(), testClock: options.testClock !== undefined }));
  remoteRoutes(app, stack);
  toolRoutes(app, stack);
  previewRoutes(app, stack);
  if (options.testClock !== undefined) testClockRoute(app, stack, options.testClock, hub);
  const endStreams = eventsRoute(app, hub);
  const endInspectorStreams = inspectRoutes(app, stack);
  staticRoutes(app);

  app.notFound((c) => sendFailure(c, 'route_not_found', `No route ${c.req.method} ${c.req.path}.`));
  app.onError((error, c) => {
    if (error instanceof HostHttpError || error instanceof ScheduleError) return sendFailure(c, error.code, error.message);
    logger.error(`HTTP ${c.req.method} ${c.req.path} failed.`, { cause: error });
    return sendFailure(c, 'internal_error', 'The schedule operation failed.');
  });

  return {
    app,
    close() {
      endStreams();
      endInspectorStreams();
      hub.close();
    },
  };
}
