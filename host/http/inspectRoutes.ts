// The live inspector over HTTP. `GET /api/inspect` answers the inspector's view — the live actor
// tree (supervisor, Session actors, task actors and their effects, each with its state and last
// event; tasks with title and next target) and the recent entries — as superjson text.
// `GET /api/inspect/events` streams it as Server-Sent Events: a `snapshot` event with the view,
// then an `update` event per inspector update (`entry`, `removed`, `reset`), each superjson text;
// a client that falls behind (`MAX_PENDING_UPDATES` updates or `backlogBytes` bytes) is sent a
// fresh `snapshot`. The stream is one of the Host's live streams (liveStreams.ts: capped, ended at
// shutdown). Both take `?sessionId=` (that Session's actors with their ancestors, and its
// entries) and `?limit=` (how many of the newest entries).
import type { Context, Hono } from 'hono';
import type { InspectorFilter } from '../../src/index.ts';
import { isSessionId, SESSION_ID_RULE } from '../sessions/sessionId.ts';
import type { HostStack } from '../stack.ts';
import { HostHttpError } from './failures.ts';
import { MAX_PENDING_UPDATES, openInspectorFeed } from './inspectorFeed.ts';
import type { LiveStreams } from './liveStreams.ts';

/** How many of the newest entries a view holds when the request gives no `limit`. */
export const DEFAULT_INSPECT_LIMIT = 100;
/** The largest accepted `limit`. */
export const MAX_INSPECT_LIMIT = 1000;

/** The filter a request asks for; refuses a malformed Session id or limit. */
export function inspectFilter(c: Context): InspectorFilter {
  const sessionId = c.req.query('sessionId');
  const limit = c.req.query('limit');
  if (sessionId !== undefined && !isSessionId(sessionId))
    throw new HostHttpError('invalid_session_id', `${JSON.stringify(sessionId)} is not a Session id. ${SESSION_ID_RULE}`);
  const n = limit === undefined ? DEFAULT_INSPECT_LIMIT : /^\d{1,4}$/.test(limit) ? Number(limit) : Number.NaN;
  if (!(n >= 1 && n <= MAX_INSPECT_LIMIT))
    throw new HostHttpError('invalid_request', `limit must be a whole number from 1 to ${MAX_INSPECT_LIMIT}.`);
  return sessionId === undefined ? { limit: n } : { sessionId, limit: n };
}

/** Registers the routes. */
export function inspectRoutes(app: Hono, stack: HostStack, streams: LiveStreams, backlogBytes: number): void {
  const { inspector } = stack;
  const limits = { maxMessages: MAX_PENDING_UPDATES, maxBytes: backlogBytes };

  app.get('/api/inspect', (c) =>
    c.body(inspector.snapshot(inspectFilter(c)), 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }),
  );

  app.get('/api/inspect/events', (c) => {
    const filter = inspectFilter(c);
    return streams.open(c, () => openInspectorFeed(inspector, filter, limits));
  });
}
