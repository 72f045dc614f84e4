// `GET /api/events`: the Host's live events as Server-Sent Events. Each event's name is its type
// (`schedule/changed`, `delivery`, `clock`) and its data the JSON payload; a `ready` event opens
// the stream and a comment line every 25 s keeps proxies from closing it. `close()` ends every
// open stream so the server can stop.
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { EventHub } from './eventHub.ts';

const KEEPALIVE_MS = 25_000;

/** Registers the route; the returned function ends every open stream. */
export function eventsRoute(app: Hono, hub: EventHub): () => void {
  const open = new Set<() => void>();

  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      let done: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => {
        done = resolve;
      });
      open.add(done);
      stream.onAbort(done);
      const off = hub.subscribe((event) => void stream.writeSSE({ event: event.type, data: JSON.stringify(event.data) }).catch(done));
      const keepalive = setInterval(() => void stream.write(': keepalive\n\n').catch(done), KEEPALIVE_MS);
      keepalive.unref();
      try {
        await stream.writeSSE({ event: 'ready', data: '{}' });
        await ended;
      } finally {
        clearInterval(keepalive);
        off();
        open.delete(done);
      }
    }),
  );

  return () => {
    for (const end of [...open]) end();
  };
}
