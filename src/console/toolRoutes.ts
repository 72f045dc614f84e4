// The model tools over HTTP: their JSON Schemas, and calls made as the Session in the path would
// make them. The body is the tool's arguments; the answer is the tool's JSON value. An
// `Idempotency-Key` header is the call's `callId`.
import type { Hono } from 'hono';
import { sendResult } from './failures.ts';
import { idempotencyOf } from './idempotencyKey.ts';
import type { ConsoleService } from './options.ts';
import { readJsonObject } from './requestGuards.ts';

/** Registers `GET /api/tools` and `POST /api/sessions/:id/tools/:name`. */
export function toolRoutes(app: Hono, service: ConsoleService): void {
  app.get('/api/tools', (c) => c.json(service.toolDefinitions));

  app.post('/api/sessions/:id/tools/:name', async (c) => {
    const args = await readJsonObject(c, true);
    return sendResult(c, await service.callTool(c.req.param('id'), c.req.param('name'), args, idempotencyOf(c)));
  });
}
