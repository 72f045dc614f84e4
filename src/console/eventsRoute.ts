// `GET /api/events`: the console's live events as Server-Sent Events. Each event's name is its type
// (`schedule/changed`, `delivery`, `clock`) and its data the JSON payload; a `ready` event opens
// the stream and a comment line every 25 s keeps proxies from closing it. The stream is one of
// the console's live streams (liveStreams.ts: capped, ended at shutdown); a client that falls more
// than `backlogBytes` behind is disconnected (eventFeed.ts).
import type { Hono } from 'hono';
import { MAX_PENDING_EVENTS, openEventFeed } from './eventFeed.ts';
import type { EventHub } from './eventHub.ts';
import type { LiveStreams } from './liveStreams.ts';

/** Registers the route. */
export function eventsRoute(app: Hono, hub: EventHub, streams: LiveStreams, backlogBytes: number): void {
  const limits = { maxMessages: MAX_PENDING_EVENTS, maxBytes: backlogBytes };
  app.get('/api/events', (c) => streams.open(c, (disconnect) => openEventFeed(hub, limits, disconnect)));
}
