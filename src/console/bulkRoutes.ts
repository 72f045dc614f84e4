// The counts per state and the bulk actions over HTTP (docs/api.md). `GET /api/counts` answers
// `{all}` — how many tasks are scheduled, overdue, paused, failing, ended, and in total — and with
// `?sessionId=` that Session's counts as `session` too. `POST /api/bulk` takes `remote.bulk`'s
// request as its JSON body (`{action, note?, tasks}` or `{action, note?, filter}`) and answers
// `{action, matched, done, skipped}`; its `Idempotency-Key` header is the call's `callId`. The
// console serves both to whoever `authorize` lets in; an `authorize` that gives a caller one
// Session only would check the body's `filter.sessionId` (or its tasks) itself.
import type { Hono } from 'hono';
import type { BulkRequest } from '../index.ts';
import { sendResult } from './failures.ts';
import { idempotencyOf } from './idempotencyKey.ts';
import type { ConsoleService } from './options.ts';
import { readJsonObject } from './requestGuards.ts';

/** Registers `GET /api/counts` and `POST /api/bulk`. */
export function bulkRoutes(app: Hono, service: ConsoleService): void {
  app.get('/api/counts', async (c) => {
    // Every parameter goes on as sent: the service refuses one it does not take.
    const query = c.req.query();
    return sendResult(c, await service.remote.counts(Object.keys(query).length === 0 ? undefined : query));
  });

  app.post('/api/bulk', async (c) => {
    const body = await readJsonObject(c);
    // The service checks the request's form and answers a refusal for a bad one.
    return sendResult(c, await service.remote.bulk(body as unknown as BulkRequest, idempotencyOf(c)));
  });
}
