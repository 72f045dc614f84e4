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
// `?sessions=` and `?tasks=` (how many of each are listed).
import type { Context, Hono } from 'hono';
import superjson from 'superjson';
import type { InspectorFilter, InspectorQuery } from '../../src/index.ts';
import { isSessionId, SESSION_ID_RULE } from '../sessions/sessionId.ts';
import type { HostStack } from '../stack.ts';
import { HostHttpError } from './failures.ts';
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
  if (!(n >= min && n <= max)) throw new HostHttpError('invalid_request', `${name} must be a whole number from ${min} to ${max}.`);
  return n;
}

/** The filter a request asks for; refuses a malformed Session id or limit. */
export function inspectFilter(c: Context): InspectorFilter {
  const sessionId = c.req.query('sessionId');
  if (sessionId !== undefined && !isSessionId(sessionId))
    throw new HostHttpError('invalid_session_id', `${JSON.stringify(sessionId)} is not a Session id. ${SESSION_ID_RULE}`);
  const limit = wholeNumber(c, 'limit', 1, MAX_INSPECT_LIMIT, DEFAULT_INSPECT_LIMIT);
  return sessionId === undefined ? { limit } : { sessionId, limit };
}

/** The summary query a request asks for: the filter, `q`, `sessions` and `tasks`; refuses malformed ones. */
export function inspectQuery(c: Context): InspectorQuery {
  const text = c.req.query('q')?.trim();
  if (text !== undefined && text.length > MAX_INSPECT_TEXT)
    throw new HostHttpError('invalid_request', `q must be at most ${MAX_INSPECT_TEXT} characters.`);
  return {
    ...inspectFilter(c),
    ...(text === undefined || text === '' ? {} : { text }),
    sessions: wholeNumber(c, 'sessions', 0, MAX_VIEW_SIZE.sessions, DEFAULT_VIEW_SIZE.sessions),
    tasks: wholeNumber(c, 'tasks', 0, MAX_VIEW_SIZE.tasks, DEFAULT_VIEW_SIZE.tasks),
  };
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** Registers the routes. */
export function inspectRoutes(app: Hono, stack: HostStack, streams: LiveStreams, backlogBytes: number): void {
  const { inspector } = stack;
  const limits = { maxMessages: MAX_PENDING_UPDATES, maxBytes: backlogBytes };

  app.get('/api/inspect', (c) => c.body(inspector.snapshot(inspectFilter(c)), 200, JSON_HEADERS));

  app.get('/api/inspect/summary', (c) => c.body(superjson.stringify(inspector.summary(inspectQuery(c))), 200, JSON_HEADERS));

  app.get('/api/inspect/events', (c) => {
    const query = inspectQuery(c);
    return streams.open(c, () => openInspectorFeed(inspector, query, { limits }));
  });
}
