// The live inspector over HTTP. `GET /api/inspect` answers the inspector's whole view — every live
// actor (supervisor, Session actors, task actors and their effects, each with its state and last
// event; tasks with title and next target) and the recent entries — as superjson text: its size
// grows with the schedule, so it is for small schedules and debugging. `GET /api/inspect/summary`
// answers the bounded summary instead (the supervisors, the top Sessions by due work, the tasks a
// filter selects, with counts of the rest), whatever the schedule's size. `GET
// /api/inspect/events` streams that summary as Server-Sent Events (inspectorFeed.ts): a `snapshot`
// event, then an `update` event per entry of an actor in view and a fresh `summary` update at most
// every second while anything changes; a client that falls behind (`MAX_PENDING_UPDATES` messages
// or `backlogBytes` bytes) is sent a fresh `snapshot`. The stream is one of the Host's live
// streams (liveStreams.ts: capped, ended at shutdown). All take `?sessionId=` (that Session's
// actors with their ancestors, and its entries) and `?limit=` (how many of the newest entries);
// the summary and the stream also `?q=` (tasks whose id, title or Session contains it),
// `?sessions=` and `?tasks=` (how many of each are listed). Without an inspector (the Host gave
// none) every route answers 404 `route_not_found`.
import type { Context, Hono } from 'hono';
import superjson from 'superjson';
import type { InspectorFilter, InspectorQuery } from '../index.ts';
import { type ConsoleContext, checkSessionId } from './context.ts';
import { ConsoleHttpError, sendFailure } from './failures.ts';
import { DEFAULT_VIEW_SIZE, MAX_PENDING_UPDATES, openInspectorFeed } from './inspectorFeed.ts';
import type { LiveStreams } from './liveStreams.ts';

/** How many of the newest entries a view holds when the request gives no `limit`. */
export const DEFAULT_INSPECT_LIMIT = 100;
/** The largest accepted `limit`. */
export const MAX_INSPECT_LIMIT = 1000;
/** The largest accepted `sessions` and `tasks` of a summary. */
export const MAX_VIEW_SIZE = { sessions: 500, tasks: 1000 } as const;
/** The longest accepted task filter `q`. */
export const MAX_INSPECT_TEXT = 200;

/** A whole number from `min` to `max` (`fallback` when absent), or a 400 naming `name`. */
function wholeNumber(c: Context, name: string, min: number, max: number, fallback: number): number {
  const raw = c.req.query(name);
  const n = raw === undefined ? fallback : /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= min && n <= max)) throw new ConsoleHttpError('invalid_request', `${name} must be a whole number from ${min} to ${max}.`);
  return n;
}

/** The filter a request asks for; refuses a malformed Session id or limit. */
export function inspectFilter(c: Context, ctx: Pick<ConsoleContext, 'isSessionId'>): InspectorFilter {
  const sessionId = c.req.query('sessionId');
  if (sessionId !== undefined) checkSessionId(ctx, sessionId);
  const limit = wholeNumber(c, 'limit', 1, MAX_INSPECT_LIMIT, DEFAULT_INSPECT_LIMIT);
  return sessionId === undefined ? { limit } : { sessionId, limit };
}

/** The summary query a request asks for: the filter, `q`, `sessions` and `tasks`; refuses malformed ones. */
export function inspectQuery(c: Context, ctx: Pick<ConsoleContext, 'isSessionId'>): InspectorQuery {
  const text = c.req.query('q')?.trim();
  if (text !== undefined && text.length > MAX_INSPECT_TEXT)
    throw new ConsoleHttpError('invalid_request', `q must be at most ${MAX_INSPECT_TEXT} characters.`);
  return {
    ...inspectFilter(c, ctx),
    ...(text === undefined || text === '' ? {} : { text }),
    sessions: wholeNumber(c, 'sessions', 0, MAX_VIEW_SIZE.sessions, DEFAULT_VIEW_SIZE.sessions),
    tasks: wholeNumber(c, 'tasks', 0, MAX_VIEW_SIZE.tasks, DEFAULT_VIEW_SIZE.tasks),
  };
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** Registers the routes. */
export function inspectRoutes(app: Hono, ctx: ConsoleContext, streams: LiveStreams): void {
  const { inspector } = ctx;
  if (inspector === undefined) {
    app.get('/api/inspect/*', (c) => sendFailure(c, 'route_not_found', 'This Host gives the console no inspector of its actor system.'));
    app.get('/api/inspect', (c) => sendFailure(c, 'route_not_found', 'This Host gives the console no inspector of its actor system.'));
    return;
  }
  const limits = { maxMessages: MAX_PENDING_UPDATES, maxBytes: ctx.limits.streamBacklogBytes };

  app.get('/api/inspect', (c) => c.body(inspector.snapshot(inspectFilter(c, ctx)), 200, JSON_HEADERS));

  app.get('/api/inspect/summary', (c) => c.body(superjson.stringify(inspector.summary(inspectQuery(c, ctx))), 200, JSON_HEADERS));

  app.get('/api/inspect/events', (c) => {
    const query = inspectQuery(c, ctx);
    return streams.open(c, () => openInspectorFeed(inspector, query, { limits }));
  });
}
