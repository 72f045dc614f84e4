// The call router: a tool or remote call that reaches one Host for a Session whose shard another
// Host owns is handed to the owner through the database, so it runs where the Session's schedule
// runs. The caller inserts a `pending` row of `routed_calls` and notifies `<schema>_calls` with the
// shard; the owner claims the pending rows of the shards it holds (one statement, `FOR UPDATE SKIP
// LOCKED`, checked against its lease, so no call is claimed twice), runs them one at a time per
// Session in id order, stores the reply if the row is still claimed by it, and notifies
// `<schema>_replies` with the row id; the caller reads and deletes the answered row. Polling backs
// up both notifications. A call no Host claimed before its deadline is withdrawn (nothing ran); a
// call claimed by a Host that lost the shard before answering ends `persistence_uncertain` — its
// next owner never runs it again, it answers it so.
import { ERROR_CODES, type ErrorCode, isScheduleError, ScheduleError } from '../../domain/errors.ts';
import { isConnectionFailure, reasonOf, type SqlClient, type SqlPool, type SqlResult } from './driver.ts';
import { quoteSchema } from './migrations.ts';
import { isPostgresText, shardOf } from './rowColumns.ts';
import { SchemaQueries } from './schemaQueries.ts';
import { checkHostId } from './shardLeases.ts';

/** A JSON value: what a routed request and its reply are. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** One routed call, as its owner runs it. */
export interface RoutedRequest {
  /** The row id (ids grow in the order calls were routed). */
  readonly id: number;
  readonly sessionId: string;
  readonly shard: number;
  /** The epoch of the shard's lease the call was claimed under. */
  readonly epoch: number;
  readonly request: JsonValue;
}

/**
 * Listens on `channels` on a connection of its own: `onNotification` for each notification,
 * `onLost` once when the connection is lost. Answers the function that stops listening.
 */
export type NotificationListener = (
  channels: readonly string[],
  onNotification: (channel: string, payload: string) => void,
  onLost: (error: Error) => void,
) => Promise<() => Promise<void>>;

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
  /** Told of failures on the owner's side (claims, replies, the listening connection), which are retried. */
  readonly onError?: (error: unknown) => void;
}

/**
 * A routed call that did not run: no Host claimed it before its deadline (it was withdrawn), or it
 * could not be handed over at all.
 */
export class CallNotRunError extends ScheduleError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('owner_unavailable', message, options);
    this.name = 'CallNotRunError';
  }
}

const DEFAULT_SCHEMA = 'agent_schedule';
const SWEEP_EVERY_MS = 60_000;
const BATCH = 500;
const RECENT_REPLIES = 1_024;

/** The longest channel name PostgreSQL keeps (longer identifiers are cut to 63 bytes). */
const channelName = (schema: string, suffix: string): string => `${schema}_${suffix}`.slice(0, 63);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Where `value` is not JSON (the path of the first such member), or undefined when it is. */
function notJson(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is ${String(value)}`;
  if (typeof value !== 'object') return `${path} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}`;
  if (ancestors.has(value)) return `${path} refers back to itself`;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (!(i in value)) return `${path}[${i}] is a hole`;
        const found = notJson(value[i], `${path}[${i}]`, ancestors);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return `${path} is a ${value.constructor?.name ?? 'non-plain'} object`;
    if (Object.getOwnPropertySymbols(value).length > 0) return `${path} has symbol keys`;
    for (const [key, member] of Object.entries(value)) {
      const found = notJson(member, `${path}.${key}`, ancestors);
      if (found !== undefined) return found;
    }
    return undefined;
  } finally {
    ancestors.delete(value);
  }
}

/** The stored reply: what `execute` answered, or the failure a caller gets. */
type StoredReply =
  | { readonly ok: true; readonly value?: JsonValue }
  | { readonly ok: false; readonly error: { code: string; message: string } };

const failureOf = (code: ErrorCode, message: string): StoredReply => ({ ok: false, error: { code, message } });

function replyText(outcome: { value: unknown } | { error: unknown }): string {
  if ('error' in outcome) {
    const { error } = outcome;
    const failure = isScheduleError(error) ? failureOf(error.code, error.message) : failureOf('internal_error', reasonOf(error));
    return JSON.stringify(failure);
  }
  if (outcome.value === undefined) return JSON.stringify({ ok: true });
  const problem = notJson(outcome.value, 'the reply', new Set());
  if (problem !== undefined) return JSON.stringify(failureOf('internal_error', `The call ran, but its reply is not JSON: ${problem}.`));
  return JSON.stringify({ ok: true, value: outcome.value });
}

const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);

function replyOf(text: string): unknown {
  const reply = JSON.parse(text) as StoredReply;
  if (reply.ok) return reply.value;
  const code = isErrorCode(reply.error?.code) ? reply.error.code : 'internal_error';
  throw new ScheduleError(code, String(reply.error?.message ?? 'The routed call failed.'));
}

interface Waiter {
  readonly id: number;
  readonly shard: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** A statement that may answer it is in flight (only one at a time, so two never race). */
  busy: boolean;
  /** Its timeout passed while a statement was in flight. */
  expired: boolean;
  /** A reply notification came while a statement was in flight (which may have looked too early). */
  recheck: boolean;
}

interface SessionQueue {
  readonly items: RoutedRequest[];
  running: Promise<void> | undefined;
}

/** The call router of one Host on one schema; see {@link callRouter}. */
export class CallRouter {
  readonly schema: string;
  private readonly q: string;
  private readonly hostId: string;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private readonly callsChannel: string;
  private readonly repliesChannel: string;
  private readonly listenFn: NotificationListener;
  private readonly queries: SchemaQueries;
  private ready: Promise<void> | undefined;

  private started = false;
  private stopped = false;
  private listening: Promise<void> | undefined;
  private closeListener: (() => Promise<void>) | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private backoffMs = 0;
  private claimTimer: ReturnType<typeof setInterval> | undefined;
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private orphansWanted = false;
  private lastSweep = 0;
  /** The ids of the calls this router claimed and has not answered or handed back. */
  private readonly held = new Set<number>();
  private readonly queues = new Map<string, SessionQueue>();
  private readonly waiters = new Map<number, Waiter>();
  private readonly recentReplies = new Set<number>();
  private readonly inserting = new Map<string, Promise<unknown>>();
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private polling = false;

  constructor(private readonly options: CallRouterOptions) {
    if (options?.pool === undefined) throw new ScheduleError('internal_error', 'callRouter needs a pool.');
    this.hostId = checkHostId(options.hostId);
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
    this.timeoutMs = positive('timeoutMs', options.timeoutMs, 10_000);
    this.pollMs = positive('pollMs', options.pollMs, 1_000);
    this.schema = options.schema ?? DEFAULT_SCHEMA;
    this.q = quoteSchema(this.schema);
    this.queries = new SchemaQueries(options.pool, this.schema, 'The call router could not open its schema');
    this.callsChannel = channelName(this.schema, 'calls');
    this.repliesChannel = channelName(this.schema, 'replies');
    this.listenFn = options.listen ?? poolListener(options.pool);
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
    const previous = this.inserting.get(sessionId) ?? Promise.resolve();
    const inserted = previous.then(
      () => this.insert(sessionId, shard, JSON.stringify(request)),
      () => this.insert(sessionId, shard, JSON.stringify(request)),
    );
    this.inserting.set(sessionId, inserted);
    let id: number;
    try {
      id = await inserted;
    } finally {
      if (this.inserting.get(sessionId) === inserted) this.inserting.delete(sessionId);
    }
    return new Promise<unknown>((resolve, reject) => {
      const waiter: Waiter = { id, shard, resolve, reject, timer: undefined, busy: false, expired: false, recheck: false };
      waiter.timer = setTimeout(() => void this.finish(waiter, 'timeout'), this.timeoutMs);
      this.waiters.set(id, waiter);
      if (this.recentReplies.delete(id)) void this.check(id);
      this.schedulePoll();
    });
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
    return this.claim(true);
  }

  /** Runs claim passes until none is asked for; `orphans` also answers the calls of earlier leases. */
  private claim(orphans: boolean): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (orphans) this.orphansWanted = true;
    if (this.claiming !== undefined) {
      this.claimAgain = true;
      return this.claiming;
    }
    const run = async () => {
      do {
        this.claimAgain = false;
        const withOrphans = this.orphansWanted;
        this.orphansWanted = false;
        await this.claimOnce(withOrphans);
      } while (this.claimAgain && !this.stopped);
    };
    this.claiming = run().finally(() => {
      this.claiming = undefined;
    });
    return this.claiming;
  }

  /**
   * Stops: no more listening or claiming; calls claimed but not yet begun are handed back
   * (pending, for the shard's next owner); waits for the calls running now. Calls this router
   * routed and still awaits keep polling until answered or timed out.
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
    await this.claiming?.catch(() => undefined);
    const handBack: RoutedRequest[] = [];
    for (const queue of this.queues.values()) handBack.push(...queue.items.splice(0));
    await this.handBack(handBack);
    await Promise.all([...this.queues.values()].map((queue) => queue.running));
  }

  private async insert(sessionId: string, shard: number, request: string): Promise<number> {
    await this.opened().catch((error: unknown) => {
      throw new CallNotRunError(`The call could not be handed to the owner of shard ${shard}: ${reasonOf(error)}; nothing ran.`, {
        cause: error,
      });
    });
    let client: SqlClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      throw new CallNotRunError(`The call could not be handed over: the database cannot be reached (${reasonOf(error)}); nothing ran.`, {
        cause: error,
      });
    }
    let broken: Error | undefined;
    try {
      const result = await client.query(
        `with c as (
           insert into ${this.q}.routed_calls (shard, session_id, request, deadline)
           values ($1, $2, $3::json, now() + $4::bigint * interval '1 millisecond')
           returning id, shard
         )
         select c.id::text as id, pg_notify($5, c.shard::text) as notified from c`,
        [shard, sessionId, request, this.timeoutMs, this.callsChannel],
      );
      return Number(result.rows[0]?.id);
    } catch (error) {
      if (isConnectionFailure(error)) {
        broken = error instanceof Error ? error : new Error(String(error));
        throw new ScheduleError(
          'persistence_uncertain',
          `The call could not be confirmed as handed over: the database connection was lost (${reasonOf(error)}); it may or may not run.`,
          { cause: error },
        );
      }
      throw new CallNotRunError(`The call could not be handed over: the database refused it (${reasonOf(error)}); nothing ran.`, {
        cause: error,
      });
    } finally {
      client.release(broken);
    }
  }

  /** Reads (and deletes) the reply of `id` if it has been answered. */
  private async check(id: number): Promise<void> {
    const waiter = this.waiters.get(id);
    if (waiter === undefined) return;
    if (waiter.busy) {
      waiter.recheck = true;
      return;
    }
    waiter.busy = true;
    waiter.recheck = false;
    const result = await this.run(
      'The reply could not be read',
      `delete from ${this.q}.routed_calls where id = $1 and status = 'answered' returning reply::text as reply`,
      [id],
    ).catch(() => undefined);
    waiter.busy = false;
    const reply = result?.rows[0]?.reply;
    if (typeof reply === 'string') this.settle(waiter, reply);
    else this.afterLook(waiter, false);
  }

  /** What a wait needs once a statement that did not answer it is done: ending, or another look. */
  private afterLook(waiter: Waiter, lost: boolean): void {
    if (this.waiters.get(waiter.id) !== waiter) return;
    if (lost) void this.finish(waiter, 'lost');
    else if (waiter.expired) void this.finish(waiter, 'timeout');
    else if (waiter.recheck) void this.check(waiter.id);
  }

  private settle(waiter: Waiter, reply: string): void {
    if (this.waiters.get(waiter.id) !== waiter) return;
    this.waiters.delete(waiter.id);
    if (waiter.timer !== undefined) clearTimeout(waiter.timer);
    try {
      waiter.resolve(replyOf(reply));
    } catch (error) {
      waiter.reject(error);
    }
  }

  private fail(waiter: Waiter, error: ScheduleError): void {
    if (this.waiters.get(waiter.id) !== waiter) return;
    this.waiters.delete(waiter.id);
    if (waiter.timer !== undefined) clearTimeout(waiter.timer);
    waiter.reject(error);
  }

  /**
   * Ends a wait that timed out, or whose claimer lost the shard: deletes the row in one statement
   * and answers by what it was — pending (withdrawn, nothing ran), claimed (may have run) or
   * answered (its reply).
   */
  private async finish(waiter: Waiter, why: 'timeout' | 'lost'): Promise<void> {
    if (this.waiters.get(waiter.id) !== waiter) return;
    if (waiter.busy) {
      if (why === 'timeout') waiter.expired = true;
      return;
    }
    waiter.busy = true;
    const call = `The call routed to the owner of shard ${waiter.shard}`;
    let result: SqlResult;
    try {
      result = await this.run(
        'The call could not be withdrawn',
        `delete from ${this.q}.routed_calls where id = $1
         returning status, claimed_by, claimed_epoch::text as epoch, reply::text as reply`,
        [waiter.id],
      );
    } catch (error) {
      this.fail(
        waiter,
        new ScheduleError(
          'persistence_uncertain',
          `${call} was not answered and could not be withdrawn (${reasonOf(error)}); it may or may not have run.`,
          {
            cause: error,
          },
        ),
      );
      return;
    }
    const row = result.rows[0];
    if (row?.status === 'answered' && typeof row.reply === 'string') {
      this.settle(waiter, row.reply);
    } else if (row?.status === 'pending') {
      this.fail(
        waiter,
        new CallNotRunError(`${call} was not taken by any Host within ${this.timeoutMs} ms and was withdrawn; nothing ran.`),
      );
    } else if (row?.status === 'claimed') {
      const by = `host ${JSON.stringify(String(row.claimed_by))} at epoch ${String(row.epoch)}`;
      const what =
        why === 'lost'
          ? `was taken by ${by}, which lost the shard before answering`
          : `was taken by ${by} but not answered within ${this.timeoutMs} ms`;
      this.fail(waiter, new ScheduleError('persistence_uncertain', `${call} ${what}; it may or may not have run.`));
    } else {
      this.fail(
        waiter,
        new ScheduleError('persistence_uncertain', `${call} disappeared before it was answered; it may or may not have run.`),
      );
    }
  }

  private schedulePoll(): void {
    if (this.pollTimer !== undefined || this.waiters.size === 0) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      void this.pollWaiters().finally(() => this.schedulePoll());
    }, this.pollMs);
  }

  /** Looks at every awaited call: answered ones are read, those whose claimer lost the shard are ended. */
  private async pollWaiters(): Promise<void> {
    if (this.polling) return;
    const looked = [...this.waiters.values()].filter((w) => !w.busy);
    if (looked.length === 0) return;
    this.polling = true;
    for (const waiter of looked) waiter.busy = true;
    const ids = looked.map((w) => w.id);
    const lost: Waiter[] = [];
    try {
      const answered = await this.run(
        'The replies could not be read',
        `delete from ${this.q}.routed_calls where id = any($1::bigint[]) and status = 'answered' returning id::text as id, reply::text as reply`,
        [ids],
      );
      for (const row of answered.rows) {
        const waiter = this.waiters.get(Number(row.id));
        if (waiter !== undefined && typeof row.reply === 'string') this.settle(waiter, row.reply);
      }
      const claimedByLoser = await this.run(
        'The routed calls could not be read',
        `select c.id::text as id from ${this.q}.routed_calls c
         left join ${this.q}.shard_leases l on l.shard = c.shard
         where c.id = any($1::bigint[]) and c.status = 'claimed'
           and (l.owner is distinct from c.claimed_by or l.epoch is distinct from c.claimed_epoch)`,
        [ids],
      );
      for (const row of claimedByLoser.rows) {
        const waiter = this.waiters.get(Number(row.id));
        if (waiter !== undefined) lost.push(waiter);
      }
    } catch {
      // The next poll (or the timeout) tries again.
    } finally {
      this.polling = false;
      for (const waiter of looked) waiter.busy = false;
    }
    for (const waiter of looked) this.afterLook(waiter, lost.includes(waiter));
  }

  private ownedShards(): { shards: number[]; epochs: number[] } {
    const shards: number[] = [];
    const epochs: number[] = [];
    for (let shard = 0; shard < 256; shard++) {
      const epoch = this.options.owns(shard);
      if (epoch !== undefined) {
        shards.push(shard);
        epochs.push(epoch);
      }
    }
    return { shards, epochs };
  }

  private async claimOnce(withOrphans: boolean): Promise<void> {
    const { shards, epochs } = this.ownedShards();
    if (shards.length === 0) return;
    const q = this.q;
    const owned = `owned as (
        select o.shard, o.epoch from unnest($1::smallint[], $2::bigint[]) as o(shard, epoch)
        join ${q}.shard_leases l on l.shard = o.shard and l.owner = $3 and l.epoch = o.epoch
      )`;
    if (withOrphans) {
      await this.run(
        'The calls of a lost lease could not be answered',
        `with ${owned}, orphaned as (
         update ${q}.routed_calls c
         set status = 'answered', answered_at = now(),
             reply = json_build_object('ok', false, 'error', json_build_object(
               'code', 'persistence_uncertain',
               'message', format('The call routed to the owner of shard %s was taken by host %s at epoch %s, which lost the shard before answering; it may or may not have run.',
                 c.shard, to_json(c.claimed_by)::text, c.claimed_epoch)))
         from owned
         where c.shard = owned.shard and c.status = 'claimed'
           and not (c.claimed_by = $3 and c.claimed_epoch = owned.epoch and c.id = any($5::bigint[]))
         returning c.id
       )
       select id::text as id, pg_notify($4, id::text) as notified from orphaned`,
        [shards, epochs, this.hostId, this.repliesChannel, [...this.held]],
      );
    }
    const claimed = await this.run(
      'The pending calls could not be claimed',
      `with ${owned}, picked as (
         select c.id, owned.epoch from ${q}.routed_calls c
         join owned on owned.shard = c.shard
         join ${q}.shard_leases l on l.shard = c.shard and l.expires_at > now()
         where c.status = 'pending' and c.deadline > now()
         order by c.id
         limit ${BATCH}
         for update of c skip locked
       )
       update ${q}.routed_calls c
       set status = 'claimed', claimed_by = $3, claimed_epoch = picked.epoch
       from picked
       where c.id = picked.id
       returning c.id::text as id, c.shard, c.session_id, c.claimed_epoch::text as epoch, c.request::text as request`,
      [shards, epochs, this.hostId],
    );
    const calls: RoutedRequest[] = claimed.rows.map((row) => ({
      id: Number(row.id),
      sessionId: String(row.session_id),
      shard: Number(row.shard),
      epoch: Number(row.epoch),
      request: JSON.parse(String(row.request)) as JsonValue,
    }));
    calls.sort((a, b) => a.id - b.id);
    for (const call of calls) {
      this.held.add(call.id);
      this.enqueue(call);
    }
    if (calls.length === BATCH) this.claimAgain = true;
    if (Date.now() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = Date.now();
      await this.run(
        'Old routed calls could not be swept',
        `delete from ${q}.routed_calls where deadline < now() - interval '5 minutes'`,
        [],
      ).catch((error: unknown) => this.options.onError?.(error));
    }
  }

  private enqueue(call: RoutedRequest): void {
    let queue = this.queues.get(call.sessionId);
    if (queue === undefined) {
      queue = { items: [], running: undefined };
      this.queues.set(call.sessionId, queue);
    }
    const at = queue.items.findIndex((item) => item.id > call.id);
    if (at < 0) queue.items.push(call);
    else queue.items.splice(at, 0, call);
    if (queue.running === undefined) {
      const current = queue;
      current.running = this.drain(call.sessionId, current).finally(() => {
        current.running = undefined;
        if (current.items.length === 0 && this.queues.get(call.sessionId) === current) this.queues.delete(call.sessionId);
      });
    }
  }

  /**
   * Makes claimed calls that have not begun pending again, for the shard's next owner, and
   * notifies it — only while this Host still holds the shard's lease at the epoch they were
   * claimed under (the lease row locked meanwhile), so no other owner can have run a later call of
   * their Session first. Calls of a lease already lost stay claimed; the next owner answers them
   * `persistence_uncertain`.
   */
  private async handBack(calls: readonly RoutedRequest[]): Promise<void> {
    if (calls.length === 0) return;
    const ids = calls.map((call) => call.id);
    await this.run(
      'The unstarted calls could not be handed back',
      `with lease as (
         select shard, epoch from ${this.q}.shard_leases where owner = $2 order by shard for share
       ), back as (
         update ${this.q}.routed_calls c
         set status = 'pending', claimed_by = null, claimed_epoch = null
         from lease
         where c.id = any($1::bigint[]) and c.status = 'claimed' and c.claimed_by = $2
           and c.shard = lease.shard and c.claimed_epoch = lease.epoch
         returning c.shard
       )
       select pg_notify($3, shard::text) as notified from (select distinct shard from back) as s`,
      [ids, this.hostId, this.callsChannel],
    ).catch((error: unknown) => this.options.onError?.(error));
    for (const id of ids) this.held.delete(id);
  }

  private async drain(_sessionId: string, queue: SessionQueue): Promise<void> {
    for (let call = queue.items.shift(); call !== undefined; call = queue.items.shift()) {
      if (this.options.owns(call.shard) !== call.epoch) {
        await this.handBack([call]);
        continue;
      }
      let outcome: { value: unknown } | { error: unknown };
      try {
        outcome = { value: await this.options.execute(call) };
      } catch (error) {
        outcome = { error };
      }
      await this.answer(call, replyText(outcome));
      this.held.delete(call.id);
    }
  }

  /** Stores the reply if the call is still claimed by this Host at its epoch, and notifies the caller; retried a few times. */
  private async answer(call: RoutedRequest, reply: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.run(
          'The reply could not be stored',
          `with a as (
             update ${this.q}.routed_calls set status = 'answered', reply = $2::json, answered_at = now()
             where id = $1 and status = 'claimed' and claimed_by = $3 and claimed_epoch = $4
             returning id
           )
           select id::text as id, pg_notify($5, id::text) as notified from a`,
          [call.id, reply, this.hostId, call.epoch, this.repliesChannel],
        );
        return;
      } catch (error) {
        this.options.onError?.(error);
        if (attempt >= 4) return;
        await sleep(50 * 2 ** attempt);
      }
    }
  }

  private readonly onNotification = (channel: string, payload: string): void => {
    if (channel === this.callsChannel) {
      if (!this.started || this.stopped) return;
      const shard = Number(payload);
      if (Number.isInteger(shard) && this.options.owns(shard) !== undefined) {
        void this.claim(false).catch((error: unknown) => this.options.onError?.(error));
      }
    } else if (channel === this.repliesChannel) {
      const id = Number(payload);
      if (this.waiters.has(id)) {
        void this.check(id);
      } else {
        this.recentReplies.add(id);
        if (this.recentReplies.size > RECENT_REPLIES) {
          const oldest = this.recentReplies.values().next().value;
          if (oldest !== undefined) this.recentReplies.delete(oldest);
        }
      }
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
          void this.pollWaiters();
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

  private run(what: string, text: string, values: readonly unknown[]): Promise<SqlResult> {
    return this.queries.run(what, text, values);
  }
}

interface NotifyingClient {
  on(event: 'notification', fn: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error' | 'end', fn: (error?: Error) => void): void;
}

/**
 * The default {@link NotificationListener}: checks a client out of `pool` for as long as it
 * listens (a `pg` `PoolClient`, which emits `notification`), and discards it when done.
 */
export function poolListener(pool: SqlPool): NotificationListener {
  return async (channels, onNotification, onLost) => {
    const client = await pool.connect();
    const events = client as unknown as Partial<NotifyingClient>;
    if (typeof events.on !== 'function') {
      client.release();
      throw new ScheduleError('internal_error', "The pool's clients cannot deliver notifications; give callRouter a `listen` function.");
    }
    let done = false;
    const end = (error: Error | true, report: boolean) => {
      if (done) return;
      done = true;
      client.release(error);
      if (report && error !== true) onLost(error);
    };
    events.on('notification', (message) => {
      if (!done) onNotification(message.channel, message.payload ?? '');
    });
    events.on('error', (error) => end(error ?? new Error('Connection terminated'), true));
    events.on('end', () => end(new Error('Connection terminated (the listening connection ended)'), true));
    try {
      for (const channel of channels) await client.query(`listen "${channel}"`);
    } catch (error) {
      end(true, false);
      throw error;
    }
    return async () => {
      if (done) return;
      await client.query('unlisten *').catch(() => undefined);
      end(true, false);
    };
  };
}

/** The call router of a Host on the schema of its PostgreSQL storage; `start()` it to run the calls of the shards it owns. */
export const callRouter = (options: CallRouterOptions): CallRouter => new CallRouter(options);
