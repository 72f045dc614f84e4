// The call router: a tool or remote call that reaches one Host for a Session whose shard another
// Host owns is handed to the owner through the database, so it runs where the Session's schedule
// runs. The caller inserts a `pending` row of `routed_calls` and notifies `<schema>_calls` with the
// shard; the owner claims the pending rows of the shards it holds (one statement, `FOR UPDATE SKIP
// LOCKED`, checked against its lease, so no call is claimed twice), runs them one at a time per
// Session in id order, stores the reply if the row is still claimed by it, and notifies
// `<schema>_replies` with the row id and, when it fits (under 8000 bytes), the reply itself — the
// caller then reads nothing and deletes the row with its next insert (or shortly after); a longer
// reply is read and deleted in one statement. So a routed call is three round trips: insert,
// claim, reply. Polling backs up both notifications. While its shard moves (released and not yet
// taken, or taken and still opening) a call waits for the next owner, and a caller that cannot
// reach the database tries again, up to the deadline. A call no Host claimed before its deadline is
// withdrawn (nothing ran); a call claimed by a Host that lost the shard to another before answering
// ends `persistence_uncertain` — its next owner never runs it again, it answers it so.
import { ScheduleError } from '../../domain/errors.ts';
import { shardOf } from '../../domain/tasks/sessionShard.ts';
import { CallRunner, type RoutedRequest } from './callRunner.ts';
import { CallNotRunError, CallSender } from './callSender.ts';
import type { SqlPool } from './driver.ts';
import { quoteSchema } from './migrations.ts';
import { callsChannel, channelName, type NotificationListener, poolListener } from './notificationListener.ts';
import { type JsonValue, notJson } from './routedJson.ts';
import { isPostgresText } from './rowColumns.ts';
import { SchemaQueries } from './schemaQueries.ts';
import { checkHostId } from './shardLeases.ts';

export type { RoutedRequest } from './callRunner.ts';
export { CallNotRunError } from './callSender.ts';
export { type NotificationListener, poolListener } from './notificationListener.ts';
export type { JsonValue } from './routedJson.ts';

/** Options of {@link callRouter}. */
export interface CallRouterOptions {
  /** The pool to run on; never ended here. */
  readonly pool: SqlPool;
  /** The schema holding the tables; default `agent_schedule`. Migrated on first use. */
  readonly schema?: string;
  /** This Host's id, as it holds shard leases. */
  readonly hostId: string;
  /** The epoch at which this Host owns `shard`, undefined when it does not. */
  readonly owns: (shard: number) => number | undefined;
  /** Runs one call on this Host (the shard's owner) and answers its JSON reply; a ScheduleError it throws is the caller's answer. */
  readonly execute: (request: RoutedRequest) => Promise<unknown>;
  /** How long a caller waits for the reply, in ms; default 10 000. */
  readonly timeoutMs?: number;
  /** How often pending calls and awaited replies are looked for without a notification, in ms; default 1 000. */
  readonly pollMs?: number;
  /** How notifications are received; default a connection checked out of `pool` for good (a `pg` client). */
  readonly listen?: NotificationListener;
  /**
   * Hears each notification on the calls channel, for a shard owned here or not: a call routed to
   * a shard (its number), or a hand-over under way (see `ShardLeases`; docs/storage.md).
   */
  readonly onNotice?: (payload: string) => void;
  /** Told of failures on the owner's side (claims, replies, the listening connection), which are retried. */
  readonly onError?: (error: unknown) => void;
}

const DEFAULT_SCHEMA = 'agent_schedule';

/** The call router of one Host on one schema; see {@link callRouter}. */
export class CallRouter {
  readonly schema: string;
  private readonly pollMs: number;
  private readonly callsChannel: string;
  private readonly repliesChannel: string;
  private readonly listenFn: NotificationListener;
  private readonly queries: SchemaQueries;
  private readonly sender: CallSender;
  private readonly runner: CallRunner;
  private ready: Promise<void> | undefined;

  private started = false;
  private stopped = false;
  private listening: Promise<void> | undefined;
  private closeListener: (() => Promise<void>) | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private backoffMs = 0;
  private claimTimer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: CallRouterOptions) {
    if (options?.pool === undefined) throw new ScheduleError('internal_error', 'callRouter needs a pool.');
    const hostId = checkHostId(options.hostId);
    if (typeof options.owns !== 'function' || typeof options.execute !== 'function') {
      throw new ScheduleError('internal_error', 'callRouter needs owns(shard) and execute(request) functions.');
    }
    const positive = (name: string, value: number | undefined, fallback: number): number => {
      if (value === undefined) return fallback;
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new ScheduleError('internal_error', `callRouter's ${name} is a whole number of ms of at least 1, not ${String(value)}.`);
      }
      return value;
    };
    const timeoutMs = positive('timeoutMs', options.timeoutMs, 10_000);
    this.pollMs = positive('pollMs', options.pollMs, 1_000);
    this.schema = options.schema ?? DEFAULT_SCHEMA;
    this.queries = new SchemaQueries(options.pool, this.schema, 'The call router could not open its schema');
    this.callsChannel = callsChannel(this.schema);
    this.repliesChannel = channelName(this.schema, 'replies');
    this.listenFn = options.listen ?? poolListener(options.pool);
    const q = quoteSchema(this.schema);
    const opened = () => this.opened();
    this.sender = new CallSender({
      pool: options.pool,
      queries: this.queries,
      q,
      timeoutMs,
      pollMs: this.pollMs,
      callsChannel: this.callsChannel,
      opened,
    });
    this.runner = new CallRunner({
      queries: this.queries,
      q,
      hostId,
      callsChannel: this.callsChannel,
      repliesChannel: this.repliesChannel,
      owns: options.owns,
      execute: options.execute,
      stopped: () => this.stopped,
      onError: options.onError,
    });
  }

  /**
   * Hands `request` to the owner of `sessionId`'s shard and answers its reply (a ScheduleError
   * the owner's `execute` threw is thrown here). Calls one router routes for one Session run in
   * the order `route` was called.
   *
   * @throws ScheduleError `invalid_selector` for a Session id that is not text PostgreSQL holds or
   *   a request that is not JSON (nothing is sent); {@link CallNotRunError} when no Host took the
   *   call before the timeout (it was withdrawn) or it could not be handed over; `persistence_uncertain`
   *   when it may or may not have run (its owner lost the shard before answering, the timeout
   *   passed after it was taken, or the database connection was lost).
   */
  async route(sessionId: string, request: JsonValue): Promise<unknown> {
    if (typeof sessionId !== 'string' || !isPostgresText(sessionId)) {
      throw new ScheduleError(
        'invalid_selector',
        `A routed call needs a Session id string without NUL or unpaired surrogates, not ${JSON.stringify(sessionId) ?? String(sessionId)}; nothing was sent.`,
      );
    }
    const problem = notJson(request, 'the request', new Set());
    if (problem !== undefined) {
      throw new ScheduleError('invalid_selector', `A routed call's request must be a JSON value, but ${problem}; nothing was sent.`);
    }
    if (this.stopped) throw new CallNotRunError('The call router is stopped; the call was not sent.');
    const shard = shardOf(sessionId);
    await this.ensureListening().catch(() => undefined);
    return this.sender.send(sessionId, shard, request);
  }

  /** Starts the owner's side: listens for calls, claims those already pending, and looks again every `pollMs`. */
  async start(): Promise<void> {
    if (this.stopped) throw new ScheduleError('internal_error', 'A stopped call router cannot start again; make a new one.');
    if (this.started) return;
    this.started = true;
    await this.opened();
    await this.ensureListening().catch((error: unknown) => this.options.onError?.(error));
    this.claimTimer = setInterval(() => void this.claimPending().catch((error: unknown) => this.options.onError?.(error)), this.pollMs);
    await this.claimPending();
  }

  /**
   * Claims the pending calls of the shards this Host owns and queues them to run; answers the
   * calls taken and not answered under an earlier lease of those shards, or by an earlier run of
   * this Host (`persistence_uncertain`, never run again). Call it when the Host acquires shards.
   *
   * @throws ScheduleError `persistence_uncertain` when the database cannot be reached.
   */
  claimPending(): Promise<void> {
    return this.runner.claim(true);
  }

  /**
   * Stops: no more listening or claiming; calls claimed but not yet begun are handed back
   * (pending, for the shard's next owner); waits for the calls running now and for a look at the
   * replies in flight. Calls this router routed and still awaits keep polling until answered or
   * timed out.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.claimTimer !== undefined) clearInterval(this.claimTimer);
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    await this.listening?.catch(() => undefined);
    const close = this.closeListener;
    this.closeListener = undefined;
    await close?.().catch((error: unknown) => this.options.onError?.(error));
    await this.runner.stop();
    await this.sender.settled();
  }

  private readonly onNotification = (channel: string, payload: string): void => {
    if (channel === this.callsChannel) {
      if (!this.started || this.stopped) return;
      this.options.onNotice?.(payload);
      const shard = Number(payload);
      if (Number.isInteger(shard) && this.options.owns(shard) !== undefined) {
        void this.runner.claim(false).catch((error: unknown) => this.options.onError?.(error));
      }
    } else if (channel === this.repliesChannel) {
      this.sender.replied(payload);
    }
  };

  private ensureListening(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.listening ??= (async () => {
      await this.opened();
      const close = await this.listenFn([this.callsChannel, this.repliesChannel], this.onNotification, (error) => this.lost(error));
      if (this.stopped) {
        await close();
        return;
      }
      this.closeListener = close;
      this.backoffMs = 0;
    })().catch((error: unknown) => {
      this.listening = undefined;
      this.options.onError?.(error);
      this.reconnect();
      throw error;
    });
    return this.listening;
  }

  private lost(error: Error): void {
    this.options.onError?.(error);
    this.closeListener = undefined;
    this.listening = undefined;
    this.reconnect();
  }

  /** Listens again after a pause that doubles up to 5 s, then looks for what a missed notification would have said. */
  private reconnect(): void {
    if (this.stopped || this.reconnectTimer !== undefined) return;
    this.backoffMs = Math.min(5_000, Math.max(50, this.backoffMs * 2));
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.ensureListening().then(
        () => {
          if (this.started) void this.claimPending().catch((error: unknown) => this.options.onError?.(error));
          void this.sender.pollWaiters();
        },
        () => undefined,
      );
    }, this.backoffMs);
  }

  /** Migrates the schema once (the first statement through `queries` does). */
  private opened(): Promise<void> {
    this.ready ??= this.queries.run('The call router could not open its schema', 'select 1', []).then(
      () => undefined,
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }
}

/** The call router of a Host on the schema of its PostgreSQL storage; `start()` it to run the calls of the shards it owns. */
export const callRouter = (options: CallRouterOptions): CallRouter => new CallRouter(options);
