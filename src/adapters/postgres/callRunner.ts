// The owner's side of the call router: the pending calls of the shards this Host holds are claimed
// in one statement (`FOR UPDATE SKIP LOCKED`, checked against its lease, so no call is claimed
// twice), run one at a time per Session in id order, and answered if still claimed by it,
// notifying `<schema>_replies` with the row id (and the reply, when it fits). Calls claimed under
// an earlier lease are answered `persistence_uncertain`, never run again; calls not begun when the
// router stops, or when this Host gives their shard up, are handed back for the next owner.
import type { SqlResult } from './driver.ts';
import { type JsonValue, replyText } from './routedJson.ts';
import type { SchemaQueries } from './schemaQueries.ts';

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

const SWEEP_EVERY_MS = 60_000;

/** The longest reply (in bytes) a reply notification carries: its payload must stay under 8000 bytes with the id. */
const MAX_REPLY_IN_NOTIFICATION = 7_900;
const BATCH = 500;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface SessionQueue {
  readonly items: RoutedRequest[];
  running: Promise<void> | undefined;
}

/** What a {@link CallRunner} runs on, as its call router sets it up. */
export interface CallRunnerOptions {
  readonly queries: SchemaQueries;
  /** The quoted schema. */
  readonly q: string;
  readonly hostId: string;
  readonly callsChannel: string;
  readonly repliesChannel: string;
  /** The epoch at which this Host owns `shard`, undefined when it does not. */
  readonly owns: (shard: number) => number | undefined;
  /** Runs one call on this Host and answers its JSON reply. */
  readonly execute: (request: RoutedRequest) => Promise<unknown>;
  /** Whether the call router has stopped. */
  readonly stopped: () => boolean;
  readonly onError: ((error: unknown) => void) | undefined;
}

/** The calls one call router claims and runs for the shards its Host owns. */
export class CallRunner {
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private orphansWanted = false;
  private lastSweep = 0;
  /** The ids of the calls this router claimed and has not answered or handed back. */
  private readonly held = new Set<number>();
  private readonly queues = new Map<string, SessionQueue>();

  constructor(private readonly options: CallRunnerOptions) {}

  /** Runs claim passes until none is asked for; `orphans` also answers the calls of earlier leases. */
  claim(orphans: boolean): Promise<void> {
    if (this.options.stopped()) return Promise.resolve();
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
      } while (this.claimAgain && !this.options.stopped());
    };
    this.claiming = run().finally(() => {
      this.claiming = undefined;
    });
    return this.claiming;
  }

  /** Once the router is stopped: hands back the calls claimed but not yet begun and waits for those running now. */
  async stop(): Promise<void> {
    await this.claiming?.catch(() => undefined);
    const handBack: RoutedRequest[] = [];
    for (const queue of this.queues.values()) handBack.push(...queue.items.splice(0));
    await this.handBack(handBack);
    await Promise.all([...this.queues.values()].map((queue) => queue.running));
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

  /**
   * Hands back at once the queued calls of shards this Host no longer holds at their epoch (given
   * up in a rebalance, say), rather than when their Session's queue reaches them: the shard's next
   * owner can run them as soon as it holds the shard.
   */
  private async handBackMoved(): Promise<void> {
    const moved: RoutedRequest[] = [];
    for (const queue of this.queues.values()) {
      const kept = queue.items.filter((call) => this.options.owns(call.shard) === call.epoch);
      if (kept.length === queue.items.length) continue;
      moved.push(...queue.items.filter((call) => !kept.includes(call)));
      queue.items.splice(0, queue.items.length, ...kept);
    }
    await this.handBack(moved);
  }

  private async claimOnce(withOrphans: boolean): Promise<void> {
    await this.handBackMoved();
    const { shards, epochs } = this.ownedShards();
    if (shards.length === 0) return;
    const q = this.options.q;
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
        [shards, epochs, this.options.hostId, this.options.repliesChannel, [...this.held]],
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
      [shards, epochs, this.options.hostId],
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
   * notifies it — only while the shard's lease is still at the epoch they were claimed under,
   * held by this Host or released by it and not taken since (the lease row locked meanwhile), so
   * no other owner can have run a later call of their Session first. During a rebalance the calls
   * thus wait for the next owner instead of failing. Calls of a lease another Host has taken since
   * stay claimed; that owner answers them `persistence_uncertain`.
   */
  private async handBack(calls: readonly RoutedRequest[]): Promise<void> {
    if (calls.length === 0) return;
    const ids = calls.map((call) => call.id);
    await this.run(
      'The unstarted calls could not be handed back',
      `with lease as (
         select shard, epoch from ${this.options.q}.shard_leases
         where shard in (select shard from ${this.options.q}.routed_calls where id = any($1::bigint[])) and (owner = $2 or owner is null)
         order by shard for key share
       ), back as (
         update ${this.options.q}.routed_calls c
         set status = 'pending', claimed_by = null, claimed_epoch = null
         from lease
         where c.id = any($1::bigint[]) and c.status = 'claimed' and c.claimed_by = $2
           and c.shard = lease.shard and c.claimed_epoch = lease.epoch
         returning c.shard
       )
       select pg_notify($3, shard::text) as notified from (select distinct shard from back) as s`,
      [ids, this.options.hostId, this.options.callsChannel],
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

  /**
   * Stores the reply if the call is still claimed by this Host at its epoch, and notifies the
   * caller with the row id — and the reply itself when it fits in a notification, so the caller
   * reads nothing more (it deletes the row later, with others). Retried a few times.
   */
  private async answer(call: RoutedRequest, reply: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.run(
          'The reply could not be stored',
          `with a as (
             update ${this.options.q}.routed_calls set status = 'answered', reply = $2::json, answered_at = now()
             where id = $1 and status = 'claimed' and claimed_by = $3 and claimed_epoch = $4
             returning id
           )
           select id::text as id,
             pg_notify($5, case when octet_length($2::text) <= ${MAX_REPLY_IN_NOTIFICATION} then id::text || ' ' || $2::text else id::text end)
               as notified
           from a`,
          [call.id, reply, this.options.hostId, call.epoch, this.options.repliesChannel],
        );
        return;
      } catch (error) {
        this.options.onError?.(error);
        if (attempt >= 4) return;
        await sleep(50 * 2 ** attempt);
      }
    }
  }

  private run(what: string, text: string, values: readonly unknown[]): Promise<SqlResult> {
    return this.options.queries.run(what, text, values);
  }
}
