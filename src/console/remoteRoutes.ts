// The remote namespace over HTTP (docs/management.md), the Session list and the Session transcripts
// (the Host's, when it gave them; otherwise the transcript route answers 404 `route_not_found`).
// `GET /api/catalog` answers every task; with query parameters it answers one page of them, with
// `now`, the Host's clock when it answered (the instant the page's overdue/scheduled split was
// read at, so the web page shows each row's state as the filter saw it). `GET /api/sessions`
// answers every Session id (sessionIndex.ts); with `?prefix=` at most `limit` of those starting
// with it (default 20, at most 200), for a search field.
// `GET /api/drift` reports targets the time-zone data in use no longer yields (`?limit=n`: the
// first n of them and their total);
// `POST /api/sessions/:id/tasks/:task/reanchor` moves one of them, `POST /api/reanchor` (body
// `{all: true}` or `{sessionId, ids}`) several in one write.
// `POST /api/sessions/:id/tasks/:task/pause` (an optional JSON body `{note}` says why), `…/resume`
// and `…/trigger` (run now) answer the task's view, or a refusal (`schedule_not_found` 404,
// `schedule_ended` 409).
// Session ids in paths are checked before anything else runs; the service validates the rest
// and its answers are sent as they are. Every write takes an `Idempotency-Key` header (its `callId`).
import type { Hono } from 'hono';
import type { CatalogRequest, DriftRequest } from '../index.ts';
import { type ConsoleContext, checkSessionId } from './context.ts';
import { ConsoleHttpError, sendFailure, sendResult } from './failures.ts';
import { idempotencyOf } from './idempotencyKey.ts';
import { readJsonObject } from './requestGuards.ts';
import { createSessionIndex, DEFAULT_SESSION_SEARCH_LIMIT, MAX_SESSION_SEARCH_LIMIT } from './sessionIndex.ts';

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

/** Registers the remote namespace and transcript routes; answers what stops the Session index's listening. */
export function remoteRoutes(app: Hono, ctx: ConsoleContext): () => void {
  const { service, transcripts } = ctx;
  const sessionIndex = createSessionIndex(service, transcripts);

  app.use('/api/sessions/:id/*', async (c, next) => {
    checkSessionId(ctx, c.req.param('id'));
    await next();
  });

  app.get('/api/catalog', async (c) => {
    const query = c.req.query();
    if (Object.keys(query).length === 0) return c.json(await service.remote.catalog());
    const page = await service.remote.catalog(catalogRequestOf(query) as CatalogRequest);
    return sendResult(c, 'code' in page ? page : { ...page, now: new Date(ctx.now()).toISOString() });
  });

  app.get('/api/sessions', async (c) => {
    const prefix = c.req.query('prefix');
    if (prefix === undefined) return c.json(await sessionIndex.all());
    const limitText = c.req.query('limit') ?? String(DEFAULT_SESSION_SEARCH_LIMIT);
    const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_SESSION_SEARCH_LIMIT))
      throw new ConsoleHttpError(
        'invalid_request',
        `limit must be a whole number from 1 to ${MAX_SESSION_SEARCH_LIMIT}; got ${JSON.stringify(limitText.slice(0, 20))}.`,
      );
    return c.json(await sessionIndex.search(prefix.slice(0, 64), limit));
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
      throw new ConsoleHttpError('invalid_request', 'The Session and task ids come from the URL; leave sessionId and id out of the body.');
    const { expected, ...edits } = body;
    const request = { ...edits, expected, sessionId: c.req.param('id'), id: c.req.param('task') };
    return sendResult(c, await service.remote.update(request, idempotencyOf(c)));
  });

  app.delete('/api/sessions/:id/tasks/:task', async (c) =>
    sendResult(c, await service.remote.delete({ sessionId: c.req.param('id'), id: c.req.param('task') }, idempotencyOf(c))),
  );

  app.get('/api/drift', async (c) => {
    const query = c.req.query();
    if (Object.keys(query).length === 0) return c.json(await service.remote.drift());
    // `limit` as a number when it is one; anything else goes on as sent for the service to refuse.
    const request = Object.fromEntries(
      Object.entries(query).map(([name, value]) => [name, name === 'limit' ? integerOrText(value) : value]),
    );
    return sendResult(c, await service.remote.drift(request as unknown as DriftRequest));
  });

  app.post('/api/sessions/:id/tasks/:task/reanchor', async (c) =>
    sendResult(c, await service.remote.reanchor({ sessionId: c.req.param('id'), id: c.req.param('task') }, idempotencyOf(c))),
  );

  app.post('/api/sessions/:id/tasks/:task/pause', async (c) => {
    const body = await readJsonObject(c, true);
    const extra = Object.keys(body).filter((key) => key !== 'note');
    if (extra.length > 0)
      throw new ConsoleHttpError('invalid_request', 'The pause body takes only note (why the task is paused); the ids come from the URL.');
    const request = { sessionId: c.req.param('id'), id: c.req.param('task') };
    // The service checks the note (a string of 1 to 500 characters) and refuses a bad one.
    const note = body.note as string | undefined;
    return sendResult(c, await service.remote.pause(note === undefined ? request : { ...request, note }, idempotencyOf(c)));
  });

  for (const action of ['resume', 'trigger'] as const) {
    app.post(`/api/sessions/:id/tasks/:task/${action}`, async (c) =>
      sendResult(c, await service.remote[action]({ sessionId: c.req.param('id'), id: c.req.param('task') }, idempotencyOf(c))),
    );
  }

  app.post('/api/reanchor', async (c) => {
    const body = await readJsonObject(c);
    // The service checks the request's form and answers a refusal for a bad one.
    return sendResult(c, await service.remote.reanchor(body as never, idempotencyOf(c)));
  });

  app.get('/api/sessions/:id/transcript', async (c) => {
    if (transcripts === undefined) return sendFailure(c, 'route_not_found', 'This Host gives the console no Session transcripts.');
    return c.json(await transcripts.transcript(c.req.param('id')));
  });
  return () => sessionIndex.close();
}
