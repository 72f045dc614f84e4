// One client's feed of the inspector: a `snapshot` message first (the filtered view), then one
// `update` message per inspector update, each as superjson text. Updates wait in a bounded
// queue until the client has taken the previous message; a client that falls `maxPending`
// behind loses its queue and is sent a fresh snapshot instead, so a slow reader costs at most
// `maxPending` updates of memory. Updates are serialised only when a client takes them, once
// per update however many clients share it.
import superjson from 'superjson';
import type { InspectorFilter, InspectorUpdate, ScheduleInspector } from '../../src/index.ts';

/** How many updates may wait for a client before it is sent a fresh snapshot instead. */
export const MAX_PENDING_UPDATES = 256;

/** One message of the feed: the SSE event name and its superjson data. */
export interface FeedMessage {
  readonly event: 'snapshot' | 'update';
  readonly data: string;
}

export interface InspectorFeed {
  /** The next message, waiting while there is none; `undefined` once the feed is closed. */
  next(): Promise<FeedMessage | undefined>;
  /** Unsubscribes; a waiting `next()` resolves with `undefined`. */
  close(): void;
}

// The inspector hands the same update object to every subscriber, so its text is shared.
const encoded = new WeakMap<InspectorUpdate, string>();
function encode(update: InspectorUpdate): string {
  let text = encoded.get(update);
  if (text === undefined) {
    text = superjson.stringify(update);
    encoded.set(update, text);
  }
  return text;
}

/** Subscribes to `inspector` for one client; `filter.sessionId` narrows both the snapshots and the entries. */
export function openInspectorFeed(inspector: ScheduleInspector, filter: InspectorFilter, maxPending = MAX_PENDING_UPDATES): InspectorFeed {
  const pending: InspectorUpdate[] = [];
  // A snapshot taken when the client asks covers every update received before it.
  let snapshotDue = true;
  let closed = false;
  let wake: (() => void) | undefined;

  const unsubscribe = inspector.subscribe(
    (update) => {
      if (snapshotDue) return;
      if (pending.length >= maxPending) {
        pending.length = 0;
        snapshotDue = true;
      } else {
        pending.push(update);
      }
      wake?.();
    },
    filter.sessionId === undefined ? {} : { sessionId: filter.sessionId },
  );

  return {
    async next() {
      while (!closed) {
        if (snapshotDue) {
          snapshotDue = false;
          pending.length = 0;
          return { event: 'snapshot', data: inspector.snapshot(filter) };
        }
        const update = pending.shift();
        if (update !== undefined) return { event: 'update', data: encode(update) };
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      return undefined;
    },
    close() {
      if (closed) return;
      closed = true;
      unsubscribe();
      pending.length = 0;
      wake?.();
    },
  };
}
