// One client's feed of the console's live events (`GET /api/events`): a `ready` message first,
// then each event as it happens — its name the event's type, its data the JSON payload —
// waiting in a bounded backlog until the client has taken the previous one. A client that falls
// further behind than the bound is disconnected rather than queued for: a browser's EventSource
// reconnects by itself and the page reloads what it shows on `ready`. Each event is encoded
// once, however many clients share it.
import type { EventHub } from './eventHub.ts';
import type { StreamFeed, StreamMessage } from './liveStreams.ts';
import type { ConsoleEvent } from './options.ts';
import { type BacklogLimits, createStreamBacklog } from './streamBacklog.ts';

/** How many events may wait for one client (besides the byte bound). */
export const MAX_PENDING_EVENTS = 4_096;

interface Encoded {
  readonly message: StreamMessage;
  readonly bytes: number;
}

// The hub hands the same event object to every listener, so its text is shared.
const encoded = new WeakMap<ConsoleEvent, Encoded>();
function encode(event: ConsoleEvent): Encoded {
  let entry = encoded.get(event);
  if (entry === undefined) {
    const data = JSON.stringify(event.data);
    entry = { message: { event: event.type, data }, bytes: Buffer.byteLength(data) + event.type.length };
    encoded.set(event, entry);
  }
  return entry;
}

const READY: StreamMessage = { event: 'ready', data: '{}' };

/** Subscribes one client to `hub`; `fellBehind` is called (once) when it passes `limits`. */
export function openEventFeed(hub: EventHub, limits: BacklogLimits, fellBehind: () => void): StreamFeed {
  const backlog = createStreamBacklog<StreamMessage>(limits);
  backlog.push(READY, 0);
  const off = hub.subscribe((event) => {
    const { message, bytes } = encode(event);
    if (backlog.push(message, bytes) || backlog.closed) return;
    close();
    fellBehind();
  });
  function close(): void {
    off();
    backlog.close();
  }
  return {
    next: () => backlog.next(),
    close,
    get backlogBytes() {
      return backlog.bytes;
    },
  };
}
