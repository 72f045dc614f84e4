// The remote namespace over HTTP (docs/management.md), the Session list and the Session transcripts.
// `GET /api/catalog` answers every task; with query parameters it answers one page of them.
// `GET /api/drift` reports targets the time-zone data in use no longer yields;
// `POST /api/sessions/:id/tasks/:task/reanchor` moves one of them, `POST /api/reanchor` (body
// `{all: true}` or `{sessionId, ids}`) several in one write.
// `POST /api/sessions/:id/tasks/:task/pause`, `…/resume` and `…/trigger` (run now) answer the
// task's view, or a refusal (`schedule_not_found` 404, `schedule_ended` 409).
// Session ids in paths are checked before anything else runs; the service validates the rest
// and its answers are sent as they are. Every write takes an `Idempotency-Key` header (its `callId`).
import type { Hono } from 'hono';
import type { CatalogRequest } from '../../src/index.ts';
import { isSessionId, SESSION_ID_RULE } from '../sessions/sessionId.ts';
import type { HostStack } from '../stack.ts';
import { HostHttpError, sendFailure, sendResult } from './failures.ts';
import { idempotencyOf } from './idempotencyKey.ts';
import { readJsonObject } from './requestGuards.ts';

/** Page size of `history` when the request gives no `limit`. */
export const DEFAULT_HISTORY_LIMIT = 20;

const integerOrText = (text: string): number | string => (/^\d{1,6}$/.test(text) ? Number(text) : text);

/** Query parameters of `GET /api/catalog` that go into the request's `filter`. */
const CATALOG_FILTER_PARAMS = new Set(['text', 'sessionId', 'id', 'kind', 'status', 'drifted']);

const booleanOrText = (text: string): boolean | string => (text === 'true' ? true : text === 'false' ? false : text);

/**
 * The `remote.catalog` request of a catalog query: `text`, `sessionId`, `id`, `kind`, `status` and
 * `drifted` form the filter (`drifted=true` or `false` as a boolean), a whole-number `limit` is a
 * number; every other value and parameter (`cursor`, `sort`, or an unknown one) goes on as sent, so
 * the service checks and refuses it like any caller's.
 */
export function catalogRequestOf(query: Readonly<Record<string, string>>): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  const filter: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(query)) {
    if (CATALOG_FILTER_PARAMS.has(name)) filter[name] = name === 'drifted' ? booleanOrText(value) : value;
    else request[name] = name === 'limit' ? integerOrText(value) : value;
  }
  return Object.keys(filter).length === 0 ? request : { ...request, filter };
}

/** Registers the remote namespace and transcript routes. */
export function remoteRoutes(app: Hono, stack: HostStack): void {
  const { service, sessions } = stack;

  app.use('/api/sessions/:id/*', async (c, next) => {
    const id = c.req.param('id');
    if (!isSessionId(id)) return sendFailure(c, 'invalid_session_id', `${JSON.stringify(id)} is not a Session id. ${SESSION_ID_RULE}`);
    await next();
  });

  app.get('/api/catalog', async (c) => {
    const query = c.req.query();
    if (Object.keys(query).length === 0) return c.json(await service.remote.catalog());
    return sendResult(c, await service.remote.catalog(catalogRequestOf(query) as CatalogRequest));
  });

  app.get('/api/sessions', async (c) => {
    const [files, catalog] = await Promise.all([sessions.list(), service.remote.catalog()]);
    return c.json([...new Set([...files, ...catalog.map((entry) => entry.sessionId)])].sort());
  });

  app.get('/api/sessions/:id/tasks', async (c) => c.json(await service.remote.list({ sessionId: c.req.param('id') })));

  app.get('/api/sessions/:id/tasks/:task', async (c) =>
    sendResult(c, await service.remote.get({ sessionId: c.req.param('id'), id: c.req.param('task') })),
  );

  app.get('/api/sessions/:id/tasks/:task/history', async (c) => {
    const limit = c.req.query('limit');
    const before = c.req.query('before');
    // A `limit` that is not a whole number goes on as sent: the service refuses it (invalid_rule).
    const pageSize = (limit === undefined ? DEFAULT_HISTORY_LIMIT : integerOrText(limit)) as number;
    const request = { sessionId: c.req.param('id'), id: c.req.param('task'), limit: pageSize };
    return sendResult(c, await service.remote.history(before === undefined ? request : { ...request, before }));
  });

  app.patch('/api/sessions/:id/tasks/:task', async (c) => {
    const body = await readJsonObject(c);
    if ('sessionId' in body || 'id' in body)
      throw new HostHttpError('invalid_request', 'The Session and task ids come from the URL; leave sessionId and id out of the body.');
    const { expected, ...edits } = body;
    const request = { ...edits, expected, sessionId: c.req.param('id'), id: c.req.param('task') };
    return sendResult(c, await service.remote.update(request, idempotencyOf(c)));
  });

  app.delete('/api/sessions/:id/tasks/:task', async (c) =>
    sendResult(c, await service.remote.delete({ sessionId: c.req.param('id'), id: c.req.param('task') }, idempotencyOf(c))),
  );

  app.get('/api/drift', async (c) => c.json(await service.remote.drift()));

  app.post('/api/sessions/:id/tasks/:task/reanchor', async (c) =>
    sendResult(c, await service.remote.reanchor({ sessionId: c.req.param('id'), id: c.req.param('task') }, idempotencyOf(c))),
  );

  for (const action of ['pause', 'resume', 'trigger'] as const) {
    app.post(`/api/sessions/:id/tasks/:task/${action}`, async (c) =>
      sendResult(c, await service.remote[action]({ sessionId: c.req.param('id'), id: c.req.param('task') }, idempotencyOf(c))),
    );
  }

  app.post('/api/reanchor', async (c) => {
    const body = await readJsonObject(c);
    // The service checks the request's form and answers a refusal for a bad one.
    return sendResult(c, await service.remote.reanchor(body as never, idempotencyOf(c)));
  });

  app.get('/api/sessions/:id/transcript', async (c) => c.json(await sessions.transcript(c.req.param('id'))));
}
