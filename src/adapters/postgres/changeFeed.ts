// `schedule/changed` across Hosts: each committed change a Host's shard services report is
// published with `NOTIFY` on `<schema>_changes`, and every Host listening there hands it to its
// subscribers — its own changes included, so a subscriber sees each change once, from whichever
// Host made it. A notification is sent after the commit it reports, so a Host that dies between
// the two loses that notification (a subscriber re-reads what it shows after a reconnect); a
// change naming many ids is split over several notifications under PostgreSQL's payload limit.
// The changes published within `gatherMs` of the first (a burst of creates or deliveries across
// the Host's shards) go out in one statement, one notification each: a round trip per gathering
// rather than per change or per commit, for a subscriber that hears of a change those few ms later.

import type { NotificationListener } from './callRouter.ts';
import { isConnectionFailure, reasonOf, type SqlPool } from './driver.ts';

/** One committed change to some tasks of one Session. */
export interface FeedChange {
  readonly type: 'schedule/changed';
  readonly sessionId: string;
  readonly ids: string[];
}

/** Below PostgreSQL's 8000-byte payload limit, with room for the Session id's escapes. */
const PAYLOAD_BYTES = 7000;

/** The most notifications one statement sends. */
const NOTIFICATIONS_PER_STATEMENT = 500;

/** Options of {@link changeFeed}. */
export interface ChangeFeedOptions {
  readonly pool: SqlPool;
  readonly schema: string;
  readonly listen: NotificationListener;
  /** Told when a notification could not be sent or read, or the listening connection was lost. */
  readonly onError?: (error: unknown) => void;
  /** The pause before listening again after the connection was lost, in ms (default 1000). */
  readonly relistenMs?: number;
  /** How long the changes published after one are gathered to go out with it, in ms (default 10). */
  readonly gatherMs?: number;
}

const DEFAULT_GATHER_MS = 10;

export class ChangeFeed {
  private readonly channel: string;
  private readonly listeners = new Set<(change: FeedChange) => void>();
  private stopListening: (() => Promise<void>) | undefined;
  private stopped = false;
  private relisten: ReturnType<typeof setTimeout> | undefined;
  /** Payloads published since the first not yet sent, sent together when the gathering ends. */
  private queued: string[] = [];
  private sending: Promise<void> | undefined;
  /** Ends the gathering now (set while one runs). */
  private endGathering: (() => void) | undefined;

  constructor(private readonly options: ChangeFeedOptions) {
    this.channel = `${options.schema}_changes`.slice(0, 63);
  }

  /** Starts listening. */
  async start(): Promise<void> {
    this.stopped = false;
    this.stopListening = await this.options.listen(
      [this.channel],
      (_channel, payload) => this.receive(payload),
      (error) => this.lost(error),
    );
  }

  /** Calls `listener` with every change any Host publishes; answers the unsubscribe function. */
  subscribe(listener: (change: FeedChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Publishes a committed change to every Host (split when it names many ids), with the others
   * published within `gatherMs`; settles once its notifications were sent or failed; never rejects.
   */
  publish(change: FeedChange): Promise<void> {
    for (const ids of chunks(change.sessionId, change.ids)) this.queued.push(JSON.stringify({ sessionId: change.sessionId, ids }));
    this.sending ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.options.gatherMs ?? DEFAULT_GATHER_MS);
      this.endGathering = () => {
        clearTimeout(timer);
        resolve();
      };
    }).then(() => {
      this.sending = undefined;
      this.endGathering = undefined;
      return this.send(this.queued.splice(0));
    });
    return this.sending;
  }

  private async send(payloads: readonly string[]): Promise<void> {
    for (let at = 0; at < payloads.length; at += NOTIFICATIONS_PER_STATEMENT) {
      const batch = payloads.slice(at, at + NOTIFICATIONS_PER_STATEMENT);
      try {
        const client = await this.options.pool.connect();
        let broken: Error | undefined;
        try {
          await client.query('select pg_notify($1, payload) from unnest($2::text[]) with ordinality as p(payload, n) order by n', [
            this.channel,
            batch,
          ]);
        } catch (error) {
          // A connection that failed is discarded, never handed to the next caller.
          if (isConnectionFailure(error)) broken = error instanceof Error ? error : new Error(String(error));
          throw error;
        } finally {
          client.release(broken);
        }
      } catch (error) {
        const what = batch.length === 1 ? 'A schedule change' : `${batch.length} schedule changes`;
        this.options.onError?.(new Error(`${what} could not be published (${reasonOf(error)}).`, { cause: error }));
      }
    }
  }

  /** Sends what is gathered now and stops listening; the changes published before it are sent. */
  async stop(): Promise<void> {
    this.stopped = true;
    const sending = this.sending;
    this.endGathering?.();
    await sending;
    if (this.relisten !== undefined) clearTimeout(this.relisten);
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.().catch(() => undefined);
  }

  private receive(payload: string): void {
    // Every Host hears every change of the schema; one nobody on it subscribes to reads none of them.
    if (this.listeners.size === 0) return;
    let change: FeedChange;
    try {
      const value = JSON.parse(payload) as { sessionId?: unknown; ids?: unknown };
      if (typeof value.sessionId !== 'string' || !Array.isArray(value.ids) || !value.ids.every((id) => typeof id === 'string')) {
        throw new Error('not a change');
      }
      change = { type: 'schedule/changed', sessionId: value.sessionId, ids: value.ids as string[] };
    } catch (error) {
      this.options.onError?.(
        new Error(`A change notification could not be read: ${JSON.stringify(payload.slice(0, 200))}.`, { cause: error }),
      );
      return;
    }
    for (const listener of this.listeners) listener(change);
  }

  private lost(error: Error): void {
    this.stopListening = undefined;
    this.options.onError?.(error);
    if (this.stopped) return;
    this.relisten = setTimeout(() => {
      if (!this.stopped) void this.start().catch((e: unknown) => this.lost(e instanceof Error ? e : new Error(String(e))));
    }, this.options.relistenMs ?? 1000);
  }
}

/** The ids in groups whose notification stays under the payload limit. */
function chunks(sessionId: string, ids: readonly string[]): string[][] {
  const out: string[][] = [];
  const base = Buffer.byteLength(JSON.stringify({ sessionId, ids: [] }));
  let current: string[] = [];
  let bytes = base;
  for (const id of ids) {
    const size = Buffer.byteLength(JSON.stringify(id)) + 1;
    if (current.length > 0 && bytes + size > PAYLOAD_BYTES) {
      out.push(current);
      current = [];
      bytes = base;
    }
    current.push(id);
    bytes += size;
  }
  if (current.length > 0 || out.length === 0) out.push(current);
  return out;
}

export const changeFeed = (options: ChangeFeedOptions): ChangeFeed => new ChangeFeed(options);
