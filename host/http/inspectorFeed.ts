// One client's feed of the inspector: a `snapshot` message first (the filtered view), then one
// `update` message per inspector update, each as superjson text. Updates wait in the bounded
// backlog every live stream uses (streamBacklog.ts) until the client has taken the previous
// message; a client that falls behind the bound — `maxMessages` updates or `maxBytes` bytes —
// loses its queue and is sent a fresh snapshot instead, so a slow reader costs at most the bound.
// Each update is serialised once however many clients share it.
import superjson from 'superjson';
import type { InspectorFilter, InspectorUpdate, ScheduleInspector } from '../../src/index.ts';
import type { StreamFeed } from './liveStreams.ts';
import { type BacklogLimits, createStreamBacklog } from './streamBacklog.ts';

/** How many updates may wait for a client before it is sent a fresh snapshot instead. */
export const MAX_PENDING_UPDATES = 256;

/** One message of the feed: the SSE event name and its superjson data. */
export interface FeedMessage {
  readonly event: 'snapshot' | 'update';
  readonly data: string;
}

export interface InspectorFeed extends StreamFeed {
  /** The next message, waiting while there is none; `undefined` once the feed is closed. */
  next(): Promise<FeedMessage | undefined>;
  /** Unsubscribes; a waiting `next()` resolves with `undefined`. */
  close(): void;
}

// The inspector hands the same update object to every subscriber, so its text is shared.
const encoded = new WeakMap<InspectorUpdate, { readonly text: string; readonly bytes: number }>();
function encode(update: InspectorUpdate): { readonly text: string; readonly bytes: number } {
  let entry = encoded.get(update);
  if (entry === undefined) {
    const text = superjson.stringify(update);
    entry = { text, bytes: Buffer.byteLength(text) };
    encoded.set(update, entry);
  }
  return entry;
}

/** Stands in the backlog for "send a snapshot now". */
const SNAPSHOT = Symbol('snapshot');

/**
 * Subscribes to `inspector` for one client; `filter.sessionId` narrows both the snapshots and
 * the entries. `limits` bounds the waiting updates (a number bounds only their count).
 */
export function openInspectorFeed(
  inspector: ScheduleInspector,
  filter: InspectorFilter,
  limits: BacklogLimits | number = MAX_PENDING_UPDATES,
): InspectorFeed {
  const backlog = createStreamBacklog<string | typeof SNAPSHOT>(
    typeof limits === 'number' ? { maxMessages: limits, maxBytes: Number.POSITIVE_INFINITY } : limits,
  );
  // A snapshot taken when the client asks covers every update received before it.
  let snapshotDue = true;
  backlog.push(SNAPSHOT, 0);

  const unsubscribe = inspector.subscribe(
    (update) => {
      if (snapshotDue || backlog.closed) return;
      const { text, bytes } = encode(update);
      if (backlog.push(text, bytes)) return;
      backlog.clear();
      snapshotDue = true;
      backlog.push(SNAPSHOT, 0);
    },
    filter.sessionId === undefined ? {} : { sessionId: filter.sessionId },
  );

  return {
    async next() {
      const item = await backlog.next();
      if (item === undefined) return undefined;
      if (item !== SNAPSHOT) return { event: 'update', data: item };
      snapshotDue = false;
      return { event: 'snapshot', data: inspector.snapshot(filter) };
    },
    close() {
      if (backlog.closed) return;
      unsubscribe();
      backlog.close();
    },
    get backlogBytes() {
      return backlog.bytes;
    },
  };
}
