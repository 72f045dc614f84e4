// The caller's side of the call router: a routed call is inserted as a `pending` row of
// `routed_calls` (notifying `<schema>_calls` with its shard), then awaited until its reply comes —
// in the `<schema>_replies` notification itself when it fits (the row is deleted later, with the
// next call's insert or with others), else read and deleted on that notification or by polling.
// A call the database could not take is sent again until its deadline. A wait that times out, or
// whose claimer lost the shard to another Host, ends by deleting the row and answering by what it
// was: withdrawn (nothing ran), `persistence_uncertain` (it may have run), or its reply.
import { ScheduleError } from '../../domain/errors.ts';
import { isConnectionFailure, reasonOf, type SqlClient, type SqlPool, type SqlResult } from './driver.ts';
import { replyOf } from './routedJson.ts';
import type { SchemaQueries } from './schemaQueries.ts';

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

/**
 * Failures to hand a call over that leave it unsent and may pass (the database could not be
 * reached): the call is sent again until its deadline.
 */
const unreachable = new WeakSet<object>();

const notReached = (message: string, cause: unknown): CallNotRunError => {
  const error = new CallNotRunError(message, { cause });
  unreachable.add(error);
  return error;
};

const RECENT_REPLIES = 1_024;

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

/** What a {@link CallSender} runs on, as its call router sets it up. */
export interface CallSenderOptions {
  readonly pool: SqlPool;
  readonly queries: SchemaQueries;
  /** The quoted schema. */
  readonly q: string;
  readonly timeoutMs: number;
  readonly pollMs: number;
  readonly callsChannel: string;
  /** Migrates the schema once. */
  readonly opened: () => Promise<void>;
}

/** The calls one call router routed and awaits, and how they are sent and answered. */
export class CallSender {
  private readonly q: string;
  private readonly timeoutMs: number;
  private readonly pollMs: number;
  private readonly waiters = new Map<number, Waiter>();
  /**
   * Replies notified before their call's wait began (the insert's answer still on its way): id →
   * the reply, or null when the notification did not carry it.
   */
  private readonly recentReplies = new Map<number, string | null>();
  /**
   * Answered calls whose reply came in a notification: their rows are deleted later, several at
   * once — with the next call's insert, or after `pollMs` when none comes first.
   */
  private acks: number[] = [];
  private ackTimer: ReturnType<typeof setTimeout> | undefined;
  private acking: Promise<void> | undefined;
  private insertsInFlight = 0;
  private readonly inserting = new Map<string, Promise<unknown>>();
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  /** The poll pass in flight (one at a time). */
  private pass: Promise<void> | undefined;

  constructor(private readonly options: CallSenderOptions) {
    this.q = options.q;
    this.timeoutMs = options.timeoutMs;
    this.pollMs = options.pollMs;
  }

  /** Inserts `request` (JSON) after the earlier calls of `sessionId` and answers its reply. */
  async send(sessionId: string, shard: number, request: unknown): Promise<unknown> {
    const deadline = Date.now() + this.timeoutMs;
    const previous = this.inserting.get(sessionId) ?? Promise.resolve();
    const insert = () => this.insertBy(deadline, sessionId, shard, JSON.stringify(request));
    const inserted = previous.then(insert, insert);
    this.inserting.set(sessionId, inserted);
    this.insertsInFlight++;
    let id: number;
    try {
      id = await inserted;
    } catch (error) {
      this.insertsInFlight--;
      throw error;
    } finally {
      if (this.inserting.get(sessionId) === inserted) this.inserting.delete(sessionId);
    }
    return new Promise<unknown>((resolve, reject) => {
      this.insertsInFlight--;
      const waiter: Waiter = { id, shard, resolve, reject, timer: undefined, busy: false, expired: false, recheck: false };
      waiter.timer = setTimeout(() => void this.finish(waiter, 'timeout'), Math.max(0, deadline - Date.now()));
      this.waiters.set(id, waiter);
      const early = this.recentReplies.get(id);
      this.recentReplies.delete(id);
      if (typeof early === 'string') this.notified(waiter, early);
      else if (early === null) void this.check(id);
      this.schedulePoll();
    });
  }

  /**
   * A reply notification: `<id>`, or `<id> <reply>` when the reply fits in it. An awaited call is
   * answered from it (or read, when it did not carry the reply); another is remembered for a wait
   * about to begin (every Host hears every reply, so only the latest few are kept).
   */
  replied(payload: string): void {
    const space = payload.indexOf(' ');
    const id = Number(space < 0 ? payload : payload.slice(0, space));
    if (!Number.isSafeInteger(id)) return;
    const reply = space < 0 ? null : payload.slice(space + 1);
    const waiter = this.waiters.get(id);
    if (waiter !== undefined) {
      if (reply === null) void this.check(id);
      else this.notified(waiter, reply);
      return;
    }
    // Only a call whose insert has not answered yet can be this router's without a wait: other
    // Hosts' replies, which every Host hears, are not kept otherwise.
    if (this.insertsInFlight === 0) return;
    this.recentReplies.set(id, reply);
    if (this.recentReplies.size > RECENT_REPLIES) {
      const oldest = this.recentReplies.keys().next().value;
      if (oldest !== undefined) this.recentReplies.delete(oldest);
    }
  }

  /** Answers `waiter` with the reply its notification carried; its row is deleted later (see {@link acks}). */
  private notified(waiter: Waiter, reply: string): void {
    if (this.waiters.get(waiter.id) !== waiter) return;
    // A statement in flight for it (a poll, a withdrawal) settles it itself, deleting the row.
    if (waiter.busy) {
      waiter.recheck = true;
      return;
    }
    this.acks.push(waiter.id);
    this.scheduleAck();
    this.settle(waiter, reply);
  }

  private scheduleAck(): void {
    if (this.ackTimer !== undefined || this.acks.length === 0) return;
    this.ackTimer = setTimeout(() => {
      this.ackTimer = undefined;
      void this.flushAcks();
    }, this.pollMs);
    this.ackTimer.unref?.();
  }

  /** Deletes the rows of the replies taken from notifications (one statement for all); a failure leaves them to the sweep. */
  private flushAcks(): Promise<void> {
    if (this.acking !== undefined) return this.acking;
    if (this.acks.length === 0) return Promise.resolve();
    const ids = this.acks;
    this.acks = [];
    this.acking = this.run('The answered calls could not be deleted', `delete from ${this.q}.routed_calls where id = any($1::bigint[])`, [
      ids,
    ])
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.acking = undefined;
        this.scheduleAck();
      });
    return this.acking;
  }

  /**
   * Inserts the call, trying again while the database cannot be reached (a pool without a free
   * connection while shards move, say) until `deadline`: only then does the caller hear that it
   * could not be handed over.
   */
  private async insertBy(deadline: number, sessionId: string, shard: number, request: string): Promise<number> {
    for (let pauseMs = 50; ; pauseMs = Math.min(1_000, pauseMs * 2)) {
      try {
        return await this.insert(deadline, sessionId, shard, request);
      } catch (error) {
        if (!unreachable.has(error as object) || Date.now() + pauseMs >= deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  private async insert(deadline: number, sessionId: string, shard: number, request: string): Promise<number> {
    await this.options.opened().catch((error: unknown) => {
      throw notReached(`The call could not be handed to the owner of shard ${shard}: ${reasonOf(error)}; nothing ran.`, error);
    });
    let client: SqlClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      throw notReached(`The call could not be handed over: the database cannot be reached (${reasonOf(error)}); nothing ran.`, error);
    }
    let broken: Error | undefined;
    // The rows of replies already taken from notifications go with it (only when they are answered).
    const acks = this.acks;
    this.acks = [];
    try {
      const result = await client.query(
        `with gone as (
           delete from ${this.q}.routed_calls where id = any($6::bigint[]) and status = 'answered'
         ), c as (
           insert into ${this.q}.routed_calls (shard, session_id, request, deadline)
           values ($1, $2, $3::json, now() + $4::bigint * interval '1 millisecond')
           returning id, shard
         )
         select c.id::text as id, pg_notify($5, c.shard::text) as notified from c`,
        [shard, sessionId, request, Math.max(1, deadline - Date.now()), this.options.callsChannel, acks],
      );
      return Number(result.rows[0]?.id);
    } catch (error) {
      this.acks.push(...acks);
      this.scheduleAck();
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

  /**
   * Looks at every awaited call: answered ones are read, those whose claimer lost the shard are
   * ended. A pass already in flight is joined instead of starting another.
   */
  pollWaiters(): Promise<void> {
    if (this.pass !== undefined) return this.pass;
    const pass = this.pollOnce().finally(() => {
      this.pass = undefined;
    });
    this.pass = pass;
    return pass;
  }

  /** Resolves once no poll pass is in flight and the answered rows are deleted: no statement of it runs. */
  async settled(): Promise<void> {
    await this.pass;
    while (this.acking !== undefined || this.acks.length > 0) {
      if (this.ackTimer !== undefined) clearTimeout(this.ackTimer);
      this.ackTimer = undefined;
      await this.flushAcks();
    }
  }

  private async pollOnce(): Promise<void> {
    const looked = [...this.waiters.values()].filter((w) => !w.busy);
    if (looked.length === 0) return;
    for (const waiter of looked) waiter.busy = true;
    const ids = looked.map((w) => w.id);
    const lost: Waiter[] = [];
    try {
      const answered = await this.run(
        'The replies could not be read',
        `delete from ${this.q}.routed_calls where id = any($1::bigint[]) and status = 'answered' returning id::text as id, reply::text as reply`,
        [ids],
      );
      const unanswered = new Set(ids);
      for (const row of answered.rows) {
        const waiter = this.waiters.get(Number(row.id));
        unanswered.delete(Number(row.id));
        if (waiter !== undefined && typeof row.reply === 'string') this.settle(waiter, row.reply);
      }
      // Only the calls still awaited are looked at again: once every reply is in, nothing is read.
      // A claimer that released the shard (no owner yet, same epoch) has not lost it: it hands its
      // unstarted calls back for the next owner, so the wait goes on.
      const claimedByLoser =
        unanswered.size === 0
          ? { rows: [] }
          : await this.run(
              'The routed calls could not be read',
              `select c.id::text as id from ${this.q}.routed_calls c
         left join ${this.q}.shard_leases l on l.shard = c.shard
         where c.id = any($1::bigint[]) and c.status = 'claimed'
           and (l.epoch is distinct from c.claimed_epoch or (l.owner is not null and l.owner <> c.claimed_by))`,
              [[...unanswered]],
            );
      for (const row of claimedByLoser.rows) {
        const waiter = this.waiters.get(Number(row.id));
        if (waiter !== undefined) lost.push(waiter);
      }
    } catch {
      // The next poll (or the timeout) tries again.
    } finally {
      for (const waiter of looked) waiter.busy = false;
    }
    for (const waiter of looked) this.afterLook(waiter, lost.includes(waiter));
  }

  private run(what: string, text: string, values: readonly unknown[]): Promise<SqlResult> {
    return this.options.queries.run(what, text, values);
  }
}
