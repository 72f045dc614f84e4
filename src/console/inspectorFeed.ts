// One client's feed of the inspector, bounded however many actors live. It opens with a
// `snapshot` message — the inspector's bounded summary for the client's query (summary(): the
// supervisors, the top Sessions by due work, the tasks the query selects, their entries) — and
// then streams only what is in that view: an `update` message per entry of an actor in view (a
// new actor joins the view at once when its parent is in view and the list has room), and, at
// most every `refreshMs` while anything changed, an `update` of type `summary` with a fresh
// summary (new rankings and counts, the actors now in view, their entries). Entries of the other
// actors cost the feed a set lookup each. The entries of the actors in view are sent at most
// `maxEntriesPerSecond` a second: the supervisor and its effects are always in view and hear of
// every delivery, so in a burst of thousands the rest are counted, not sent (the next summary says
// how many and carries the actors as they are). Messages wait in the bounded backlog every live stream
// uses (streamBacklog.ts) until the client has taken the previous one; a summary is taken only
// when the client is ready for it, so a slow client gets fewer of them. A client that falls
// behind the bound — `maxMessages` messages or `maxBytes` bytes — loses its queue and is sent a
// fresh snapshot instead, so a slow reader costs at most the bound. Each entry update is
// serialised once however many clients share it.
import superjson from 'superjson';
import type { InspectedActor, InspectorQuery, InspectorSummary, InspectorUpdate, ScheduleInspector } from '../index.ts';
import type { StreamFeed } from './liveStreams.ts';
import { type BacklogLimits, createStreamBacklog } from './streamBacklog.ts';

/** How many messages may wait for a client before it is sent a fresh snapshot instead. */
export const MAX_PENDING_UPDATES = 256;
/** How often at most a client is sent a fresh summary while the actor system changes. */
export const SUMMARY_REFRESH_MS = 1_000;
/** How many Sessions and tasks a client's view lists when its query does not say. */
export const DEFAULT_VIEW_SIZE = { sessions: 50, tasks: 100 } as const;

/** One message of the feed: the SSE event name and its superjson data. */
export interface FeedMessage {
  readonly event: 'snapshot' | 'update';
  readonly data: string;
}

/** How many entries of the actors in view a client is sent a second at most. */
export const MAX_ENTRIES_PER_SECOND = 100;

/** The update a feed adds to the inspector's own: a fresh bounded summary, replacing the view (entries merge by `seq`). */
export interface SummaryUpdate {
  readonly type: 'summary';
  readonly summary: InspectorSummary;
  /** Entries of actors in view not sent since the previous summary, to stay within the entry rate. */
  readonly skipped: number;
}

export interface InspectorFeed extends StreamFeed {
  /** The next message, waiting while there is none; `undefined` once the feed is closed. */
  next(): Promise<FeedMessage | undefined>;
  /** Unsubscribes; a waiting `next()` resolves with `undefined`. */
  close(): void;
}

export interface InspectorFeedOptions {
  /** Bounds the waiting messages (default {@link MAX_PENDING_UPDATES} messages, no byte bound). */
  readonly limits?: BacklogLimits;
  /** Default {@link SUMMARY_REFRESH_MS}. */
  readonly refreshMs?: number;
  /** Default {@link MAX_ENTRIES_PER_SECOND}. */
  readonly maxEntriesPerSecond?: number;
  /** Reads the time the entry rate is measured by; default `Date.now`. */
  readonly now?: () => number;
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

/** Stand in the backlog for "send a snapshot now" and "send a fresh summary now". */
const SNAPSHOT = Symbol('snapshot');
const SUMMARY = Symbol('summary');

/** Which actors a client is shown, and how many more tasks and Sessions its lists can take. */
class ClientView {
  /** The actors in view, with their kinds. */
  private kinds = new Map<string, InspectedActor['kind']>();
  private taskRoom = 0;
  private sessionRoom = 0;
  private readonly sessions: number;
  private readonly tasks: number;

  constructor(private readonly query: InspectorQuery) {
    this.sessions = query.sessions ?? DEFAULT_VIEW_SIZE.sessions;
    this.tasks = query.tasks ?? DEFAULT_VIEW_SIZE.tasks;
  }

  /** The view becomes what `summary` shows. */
  reset(summary: InspectorSummary): void {
    this.kinds = new Map(summary.actors.map((a) => [a.key, a.kind]));
    this.taskRoom = Math.max(0, this.tasks - summary.actors.filter((a) => a.kind === 'task').length);
    this.sessionRoom = Math.max(0, this.sessions - summary.sessions.length);
  }

  /**
   * Whether an entry of `actor` goes to the client: its actor is in view, or it is a new one
   * under an actor in view that the query selects while its list has room (it then joins).
   */
  admits(key: string, actor: InspectedActor | undefined): boolean {
    if (this.kinds.has(key)) {
      if (actor === undefined) this.leave(key);
      return true;
    }
    if (actor === undefined || actor.parent === undefined || !this.kinds.has(actor.parent)) return false;
    const { sessionId, text } = this.query;
    if (sessionId !== undefined && actor.session !== undefined && actor.session !== sessionId) return false;
    if (actor.kind === 'task') {
      const needle = text?.trim().toLowerCase();
      const matches =
        needle === undefined ||
        needle === '' ||
        [actor.id, actor.title, actor.session].some((s) => s?.toLowerCase().includes(needle) ?? false);
      if (!matches || this.taskRoom === 0) return false;
      this.taskRoom--;
    } else if (actor.kind === 'session' || (actor.kind === 'group' && actor.session === undefined)) {
      // A Session group carries the Session actor the list would take next.
      if (this.sessionRoom === 0) return false;
      if (actor.kind === 'session') this.sessionRoom--;
    }
    this.kinds.set(key, actor.kind);
    return true;
  }

  /** The keys of `keys` in view, which leave it. */
  drop(keys: readonly string[]): string[] {
    const gone = keys.filter((k) => this.kinds.has(k));
    for (const k of gone) this.leave(k);
    return gone;
  }

  /** A gone task or Session frees its place in its list. */
  private leave(key: string): void {
    const kind = this.kinds.get(key);
    this.kinds.delete(key);
    if (kind === 'task') this.taskRoom++;
    else if (kind === 'session') this.sessionRoom++;
  }
}

/** At most `perSecond` takes in each second of `now`; counts the refused ones. */
function entryRate(perSecond: number, now: () => number): { take(): boolean; skipped(): number } {
  let second = Number.NaN;
  let taken = 0;
  let refused = 0;
  return {
    take() {
      const current = Math.floor(now() / 1000);
      if (current !== second) {
        second = current;
        taken = 0;
      }
      if (taken < perSecond) {
        taken++;
        return true;
      }
      refused++;
      return false;
    },
    /** How many were refused since the last call. */
    skipped() {
      const n = refused;
      refused = 0;
      return n;
    },
  };
}

/**
 * Subscribes to `inspector` for one client; `query` narrows the view (and `query.sessionId` the
 * entries the inspector hands over at all).
 */
export function openInspectorFeed(inspector: ScheduleInspector, query: InspectorQuery, options: InspectorFeedOptions = {}): InspectorFeed {
  const limits = options.limits ?? { maxMessages: MAX_PENDING_UPDATES, maxBytes: Number.POSITIVE_INFINITY };
  const refreshMs = options.refreshMs ?? SUMMARY_REFRESH_MS;
  const backlog = createStreamBacklog<string | typeof SNAPSHOT | typeof SUMMARY>(limits);
  const view = new ClientView(query);
  const asked: InspectorQuery = {
    ...query,
    sessions: query.sessions ?? DEFAULT_VIEW_SIZE.sessions,
    tasks: query.tasks ?? DEFAULT_VIEW_SIZE.tasks,
  };
  // A snapshot taken when the client asks covers every update received before it.
  let snapshotDue = true;
  let summaryQueued = false;
  let refresh: NodeJS.Timeout | undefined;
  backlog.push(SNAPSHOT, 0);
  const rate = entryRate(options.maxEntriesPerSecond ?? MAX_ENTRIES_PER_SECOND, options.now ?? Date.now);

  const overflow = (): void => {
    backlog.clear();
    snapshotDue = true;
    summaryQueued = false;
    backlog.push(SNAPSHOT, 0);
  };
  const send = (text: string, bytes: number): void => {
    if (!backlog.push(text, bytes)) overflow();
  };
  /** Something changed that the view may not show: a fresh summary follows within `refreshMs`. */
  const changed = (): void => {
    if (refresh !== undefined || summaryQueued || snapshotDue) return;
    refresh = setTimeout(() => {
      refresh = undefined;
      if (backlog.closed || snapshotDue || summaryQueued) return;
      summaryQueued = true;
      if (!backlog.push(SUMMARY, 0)) overflow();
    }, refreshMs);
    refresh.unref();
  };

  const unsubscribe = inspector.subscribe(
    (update) => {
      if (snapshotDue || backlog.closed) return;
      changed();
      if (update.type === 'entry') {
        if (!view.admits(update.entry.actorKey, update.actor) || !rate.take()) return;
        const { text, bytes } = encode(update);
        send(text, bytes);
      } else if (update.type === 'removed') {
        const keys = view.drop(update.keys);
        if (keys.length > 0) {
          const text = superjson.stringify({ type: 'removed', keys } satisfies InspectorUpdate);
          send(text, Buffer.byteLength(text));
        }
      } else {
        const { text, bytes } = encode(update);
        send(text, bytes);
      }
    },
    query.sessionId === undefined ? {} : { sessionId: query.sessionId },
  );

  const take = (): InspectorSummary => {
    const summary = inspector.summary(asked);
    view.reset(summary);
    return summary;
  };

  return {
    async next() {
      const item = await backlog.next();
      if (item === undefined) return undefined;
      if (item === SNAPSHOT) {
        snapshotDue = false;
        rate.skipped();
        return { event: 'snapshot', data: superjson.stringify(take()) };
      }
      if (item === SUMMARY) {
        summaryQueued = false;
        const update: SummaryUpdate = { type: 'summary', summary: take(), skipped: rate.skipped() };
        return { event: 'update', data: superjson.stringify(update) };
      }
      return { event: 'update', data: item };
    },
    close() {
      if (refresh !== undefined) clearTimeout(refresh);
      refresh = undefined;
      if (backlog.closed) return;
      unsubscribe();
      backlog.close();
    },
    get backlogBytes() {
      return backlog.bytes;
    },
  };
}
