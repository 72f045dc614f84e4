// The Node request and response behind a Hono context, as @hono/node-server hands them to the
// application (`app.fetch(request, { incoming, outgoing })`). Absent when the application is
// called without them (`app.request` in a test): callers fall back to what the Fetch API offers.
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** The Node request and response of `c`, when the server provided them. */
export function nodeBindings(c: Context): { incoming?: IncomingMessage; outgoing?: ServerResponse } {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null) return {};
  const { incoming, outgoing } = env as { incoming?: unknown; outgoing?: unknown };
  return {
    ...(incoming instanceof IncomingMessage ? { incoming } : {}),
    ...(outgoing instanceof ServerResponse ? { outgoing } : {}),
  };
}

/** Whether the client went away before its request was complete (it closed or reset the connection mid-body). */
export function clientWentAway(c: Context, error: unknown): boolean {
  const { incoming } = nodeBindings(c);
  if (incoming !== undefined) return !incoming.complete && incoming.destroyed;
  const code = (error as { code?: unknown } | null)?.code;
  return c.req.raw.signal.aborted || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}
