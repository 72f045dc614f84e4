// The caller's side of the call router: a routed call is inserted as a `pending` row of
// `routed_calls` (notifying `<schema>_calls` with its shard), then awaited until its reply is read
// and deleted — on a `<schema>_replies` notification, or by polling. A wait that times out, or whose
// claimer lost the shard, ends by deleting the row and answering by what it was: withdrawn (nothing
// ran), `persistence_uncertain` (it may have run), or its reply.
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
  private readonly recentReplies = new Set<number>();
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

  /** A reply notification for `id`: read it now if it is awaited, or remember it for a wait about to begin. */
  replied(id: number): void {
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

  private async insert(sessionId: string, shard: number, request: string): Promise<number> {
    await this.options.opened().catch((error: unknown) => {
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
        [shard, sessionId, request, this.timeoutMs, this.options.callsChannel],
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

  /** Resolves once no poll pass is in flight: its statements are done. */
  async settled(): Promise<void> {
    await this.pass;
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
      const claimedByLoser =
        unanswered.size === 0
          ? { rows: [] }
          : await this.run(
              'The routed calls could not be read',
              `select c.id::text as id from ${this.q}.routed_calls c
         left join ${this.q}.shard_leases l on l.shard = c.shard
         where c.id = any($1::bigint[]) and c.status = 'claimed'
           and (l.owner is distinct from c.claimed_by or l.epoch is distinct from c.claimed_epoch)`,
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
