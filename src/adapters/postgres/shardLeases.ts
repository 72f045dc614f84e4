// Shard leases: which Host owns which of the 256 shards (the Session groups), kept in the
// schema's `shard_leases` table so many Hosts can share one database. A lease has an owner, an
// epoch (one more each time a new owner takes the shard, so every term of ownership has its own
// number) and an expiry. The database's clock (`now()`) decides expiry, never a Host's. Each call
// is one statement: `acquire` takes free or expired shards with `FOR UPDATE SKIP LOCKED`, so Hosts
// acquiring together never take the same shard and never wait for each other, and says of each
// whether it was taken over (its owner let the lease run out), handed on (released) or never
// held, so the new owner can open the shards whose reminders may be overdue first; `renew` extends
// what a Host still owns; `release` frees shards. A shard can also pass straight from Host to Host
// while its owner serves it: `offer` names the taker, the taker says `ready` once it has read the
// shard, and the owner's `handOver` moves the lease to it at the next epoch and notifies the shard
// on the calls channel (docs/cluster.md). Rows are locked in shard order, as the fenced commits of
// the storage lock them, so the two never deadlock.
import { ScheduleError } from '../../domain/errors.ts';
import { SHARDS } from '../../domain/tasks/sessionShard.ts';
import type { SqlPool, SqlResult } from './driver.ts';
import { quoteSchema } from './migrations.ts';
import { callsChannel } from './notificationListener.ts';
import { isPostgresText } from './rowColumns.ts';
import { SchemaQueries } from './schemaQueries.ts';

/** The schema used when none is given (the storage's default). */
const DEFAULT_SCHEMA = 'agent_schedule';

/** How an offer's notification begins; the taker's id follows. */
export const OFFERED_PREFIX = 'offered:';
const OFFERED_NOTICE = `'${OFFERED_PREFIX}'`;

/** The longest lease (a day), in ms. */
export const MAX_LEASE_MS = 86_400_000;

/** One lease a Host holds. */
export interface ShardLease {
  /** The shard, 0–255 (see `shardOf`). */
  readonly shard: number;
  /** The epoch of this term of ownership; a fenced commit names it. */
  readonly epoch: number;
  /** When the lease expires, by the database's clock (a canonical UTC instant). */
  readonly expiresAt: string;
  /**
   * Where `acquire` took it from: `expired` — a lease its owner let run out (a Host that died or
   * stalled; the shard's due reminders wait for this one), `released` — freed by its owner (handed
   * on, or a Host that left), `new` — never held before, `handed` — passed straight from its
   * owner by a hand-over (the keeper tells these apart; `acquire` never answers it). Absent on
   * leases `renew` and `held` answer.
   */
  readonly from?: LeaseOrigin;
  /** On leases `renew` answers: the Host the owner offers the shard to, and whether it has read it. */
  readonly offer?: LeaseOffer;
}

/** Where an acquired lease came from (see {@link ShardLease.from}). */
export type LeaseOrigin = 'expired' | 'released' | 'new' | 'handed';

/** A shard its owner offers to another Host (see {@link ShardLeases.offer}). */
export interface LeaseOffer {
  /** The Host it is offered to. */
  readonly to: string;
  /** That Host has read the shard and can serve it as soon as the lease is its own. */
  readonly ready: boolean;
}

/** Options of {@link shardLeases}. */
export interface ShardLeasesOptions {
  /** The pool to run on (a `pg.Pool`, `createPgPool`'s, or anything with the same `connect()`); never ended here. */
  readonly pool: SqlPool;
  /** The schema holding the tables; default `agent_schedule`. Migrated on first use. */
  readonly schema?: string;
}

/** What {@link ShardLeases.acquire} takes. */
export interface AcquireRequest {
  readonly hostId: string;
  /** How long the new leases last, in ms (1 to a day). */
  readonly leaseMs: number;
  /** At most how many shards to take (0–256); fewer when fewer are free or expired. */
  readonly want: number;
  /** Take only leases their owner let run out (`from: 'expired'`), not free shards. Default false. */
  readonly expiredOnly?: boolean;
}

const invalid = (message: string): ScheduleError => new ScheduleError('internal_error', message);

/**
 * Checks a Host id: a non-empty string of at most 200 characters PostgreSQL text can hold.
 *
 * @throws ScheduleError `internal_error` naming the problem.
 */
export function checkHostId(hostId: unknown): string {
  if (typeof hostId !== 'string' || hostId.length === 0 || hostId.length > 200 || !isPostgresText(hostId)) {
    throw invalid(
      `A shard lease's host id must be a non-empty string of at most 200 characters without NUL or unpaired surrogates, not ${JSON.stringify(hostId)}.`,
    );
  }
  return hostId;
}

const checkLeaseMs = (leaseMs: unknown): number => {
  if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS) {
    throw invalid(`A shard lease lasts a whole number of ms from 1 to ${MAX_LEASE_MS}, not ${String(leaseMs)}.`);
  }
  return leaseMs;
};

const isShard = (shard: unknown): shard is number => typeof shard === 'number' && Number.isInteger(shard) && shard >= 0 && shard < SHARDS;

/**
 * The shards a Host should hold when `liveHosts` Hosts share the 256: ceil(256 / liveHosts).
 *
 * @throws ScheduleError `internal_error` when `liveHosts` is not a whole number ≥ 1.
 */
export function fairShare(liveHosts: number): number {
  if (!Number.isSafeInteger(liveHosts) || liveHosts < 1) {
    throw invalid(`fairShare takes the number of live Hosts, a whole number of at least 1, not ${String(liveHosts)}.`);
  }
  return Math.ceil(SHARDS / liveHosts);
}

/** The shard → epoch map a fenced storage checks its commits against, from the leases a Host holds. */
export const fenceEpochs = (leases: readonly ShardLease[]): Map<number, number> => new Map(leases.map((l) => [l.shard, l.epoch]));

/** The columns a lease is read from, of the table under `alias`. */
const leaseColumns = (alias: string): string =>
  `${alias}.shard, ${alias}.epoch::text as epoch, floor(extract(epoch from ${alias}.expires_at) * 1000)::bigint::text as expires_ms`;

const leaseOf = (row: Record<string, unknown>): ShardLease => ({
  shard: Number(row.shard),
  epoch: Number(row.epoch),
  expiresAt: new Date(Number(row.expires_ms)).toISOString(),
  ...(typeof row.offered_to === 'string' ? { offer: { to: row.offered_to, ready: row.offer_ready === true } } : {}),
});

const acquiredOf = (row: Record<string, unknown>): ShardLease => ({
  ...leaseOf(row),
  from: row.was_owner !== null && row.was_owner !== undefined ? 'expired' : Number(row.was_epoch) > 0 ? 'released' : 'new',
});

const byShard = (a: { shard: number }, b: { shard: number }): number => a.shard - b.shard;

function checkShardList(call: string, shards: readonly number[]): void {
  if (!Array.isArray(shards) || !shards.every(isShard)) {
    throw invalid(`${call} takes a list of shards, whole numbers 0-${SHARDS - 1}, not ${JSON.stringify(shards)}.`);
  }
}

/** Shard leases on one schema; see {@link shardLeases}. */
export class ShardLeases {
  readonly schema: string;
  private readonly quoted: string;
  private readonly queries: SchemaQueries;
  /** Where a hand-over notifies its shard. */
  private readonly channel: string;

  constructor(options: ShardLeasesOptions) {
    if (options.pool === undefined) throw invalid('shardLeases needs a pool.');
    this.schema = options.schema ?? DEFAULT_SCHEMA;
    this.quoted = quoteSchema(this.schema);
    this.channel = callsChannel(this.schema);
    this.queries = new SchemaQueries(options.pool, this.schema, 'The shard leases could not open their schema');
  }

  /**
   * Takes up to `want` shards that are free (never owned, or released) or whose lease has
   * expired (only those with `expiredOnly`), lowest first, skipping rows another transaction has
   * locked. A shard taken from another owner (or after a release) gets the next epoch; an expired
   * lease the same Host takes back keeps its epoch. Answers the leases taken, by shard, each with
   * where it came from (`from`).
   *
   * @throws ScheduleError `internal_error` for a bad request; `persistence_uncertain` when the
   *   database cannot be reached or did not answer (the shards may or may not have been taken).
   */
  async acquire(request: AcquireRequest): Promise<ShardLease[]> {
    const hostId = checkHostId(request?.hostId);
    const leaseMs = checkLeaseMs(request.leaseMs);
    const { want } = request;
    const expiredOnly = request.expiredOnly === true;
    if (typeof want !== 'number' || !Number.isInteger(want) || want < 0 || want > SHARDS) {
      throw invalid(`acquire takes a want of 0-${SHARDS} shards, not ${String(want)}.`);
    }
    if (want === 0) return [];
    const q = this.quoted;
    const result = await this.run(
      'No shard could be acquired',
      `with picked as (
         select shard, owner as was_owner, epoch as was_epoch from ${q}.shard_leases
         where (owner is null and not $4::boolean) or (owner is not null and expires_at <= now())
         order by shard
         limit $3
         for update skip locked
       )
       update ${q}.shard_leases as l
       set owner = $1,
           epoch = case when l.owner is distinct from $1 then l.epoch + 1 else l.epoch end,
           expires_at = now() + $2::bigint * interval '1 millisecond',
           offered_to = null, offer_ready = false
       from picked
       where l.shard = picked.shard
       returning ${leaseColumns('l')}, picked.was_owner, picked.was_epoch::text as was_epoch`,
      [hostId, leaseMs, want, expiredOnly],
    );
    return result.rows.map(acquiredOf).sort(byShard);
  }

  /**
   * Extends by `leaseMs` every lease `hostId` still owns — also one that expired while no other
   * Host took it (its epoch is unchanged, so no other owner came between) — and answers them, by
   * shard. A lease another Host took, or that was released, is not among them: it is lost.
   *
   * @throws ScheduleError `internal_error` for a bad request; `persistence_uncertain` when the
   *   database cannot be reached or did not answer.
   */
  async renew(hostId: string, leaseMs: number): Promise<ShardLease[]> {
    checkHostId(hostId);
    checkLeaseMs(leaseMs);
    const q = this.quoted;
    const result = await this.run(
      'No shard lease could be renewed',
      `with mine as (
         select shard from ${q}.shard_leases where owner = $1 order by shard for no key update
       )
       update ${q}.shard_leases as l
       set expires_at = now() + $2::bigint * interval '1 millisecond'
       from mine
       where l.shard = mine.shard
       returning ${leaseColumns('l')}, l.offered_to, l.offer_ready`,
      [hostId, leaseMs],
    );
    return result.rows.map(leaseOf).sort(byShard);
  }

  /**
   * Frees those of `shards` that `hostId` owns (the next owner, this Host included, gets a new
   * epoch) and answers which were freed, in order; a shard it does not own is left alone.
   *
   * @throws ScheduleError `internal_error` for a bad request; `persistence_uncertain` when the
   *   database cannot be reached or did not answer.
   */
  async release(hostId: string, shards: readonly number[]): Promise<number[]> {
    checkHostId(hostId);
    checkShardList('release', shards);
    if (shards.length === 0) return [];
    const q = this.quoted;
    const result = await this.run(
      'No shard lease could be released',
      `with mine as (
         select shard from ${q}.shard_leases where owner = $1 and shard = any($2::smallint[]) order by shard for update
       )
       update ${q}.shard_leases as l
       set owner = null, expires_at = '-infinity', offered_to = null, offer_ready = false
       from mine
       where l.shard = mine.shard
       returning l.shard`,
      [hostId, [...new Set(shards)]],
    );
    return result.rows.map((r) => Number(r.shard)).sort((a, b) => a - b);
  }

  /**
   * Offers shards `hostId` owns (unexpired) to other Hosts, each `{ shard, to }`, and answers
   * those offered, in order; notifies `offered:<taker>` on the calls channel for each taker, so it
   * steps at once. An offer made again to another Host replaces the first, and starts unread. The
   * owner keeps the lease, and serves the shard, until it hands it over.
   *
   * @throws ScheduleError `internal_error` for a bad request; `persistence_uncertain` when the
   *   database cannot be reached or did not answer.
   */
  async offer(hostId: string, offers: readonly { readonly shard: number; readonly to: string }[]): Promise<number[]> {
    checkHostId(hostId);
    if (!Array.isArray(offers) || !offers.every((o) => isShard(o?.shard) && checkHostId(o.to) !== hostId)) {
      throw invalid(`offer takes a list of { shard, to } naming shards 0-${SHARDS - 1} and other Hosts, not ${JSON.stringify(offers)}.`);
    }
    if (offers.length === 0) return [];
    const q = this.quoted;
    const result = await this.run(
      'No shard could be offered',
      `with offered as (
         update ${q}.shard_leases as l
         set offered_to = o.taker, offer_ready = l.offer_ready and l.offered_to is not distinct from o.taker
         from unnest($2::smallint[], $3::text[]) as o(shard, taker)
         where l.shard = o.shard and l.owner = $1 and l.expires_at > now()
         returning l.shard, l.offered_to
       )
       select shard, pg_notify($4, ${OFFERED_NOTICE} || offered_to) from offered`,
      [hostId, offers.map((o) => o.shard), offers.map((o) => o.to), this.channel],
    );
    return result.rows.map((r) => Number(r.shard)).sort((a, b) => a - b);
  }

  /**
   * Withdraws the offers of those of `shards` `hostId` owns; answers the shards withdrawn.
   *
   * @throws ScheduleError `internal_error` for a bad request; `persistence_uncertain` when the
   *   database cannot be reached or did not answer.
   */
  async withdraw(hostId: string, shards: readonly number[]): Promise<number[]> {
    checkHostId(hostId);
    checkShardList('withdraw', shards);
    if (shards.length === 0) return [];
    const result = await this.run(
      'No shard offer could be withdrawn',
      `update ${this.quoted}.shard_leases set offered_to = null, offer_ready = false
       where owner = $1 and shard = any($2::smallint[]) and offered_to is not null
       returning shard`,
      [hostId, [...new Set(shards)]],
    );
    return result.rows.map((r) => Number(r.shard)).sort((a, b) => a - b);
  }

  /**
   * `hostId` has read `shard`, offered to it while its owner held it at `epoch`: marks the offer
   * ready and notifies the shard, so the owner hands it over at once. Answers whether the offer
   * still stood (same owner, same epoch, offered to `hostId`).
   *
   * @throws ScheduleError `internal_error` for a bad request; `persistence_uncertain` when the
   *   database cannot be reached or did not answer.
   */
  async ready(hostId: string, shard: number, epoch: number): Promise<boolean> {
    checkHostId(hostId);
    if (!isShard(shard) || !Number.isSafeInteger(epoch)) throw invalid(`ready takes a shard 0-${SHARDS - 1} and its epoch.`);
    const result = await this.run(
      'The shard offer could not be accepted',
      `with marked as (
         update ${this.quoted}.shard_leases set offer_ready = true
         where shard = $2 and offered_to = $1 and epoch = $3 and owner is not null and expires_at > now()
         returning shard
       )
       select shard, pg_notify($4, shard::text) from marked`,
      [hostId, shard, epoch, this.channel],
    );
    return result.rows.length > 0;
  }

  /**
   * Moves those of `shards` that `hostId` owns and offered to a live Host that is ready straight
   * to that Host, at the next epoch, for `leaseMs`, and notifies each shard moved on the calls
   * channel (the taker steps at once; calls routed meanwhile are claimed). Answers the shards
   * moved, in order; the others are still `hostId`'s. Call it once the shards' work here has
   * stopped: from this statement on, no commit of `hostId` passes their fence.
   *
   * @throws ScheduleError `internal_error` for a bad request; `persistence_uncertain` when the
   *   database cannot be reached or did not answer (the shards may or may not have moved).
   */
  async handOver(hostId: string, shards: readonly number[], leaseMs: number): Promise<number[]> {
    checkHostId(hostId);
    checkLeaseMs(leaseMs);
    checkShardList('handOver', shards);
    if (shards.length === 0) return [];
    const q = this.quoted;
    const result = await this.run(
      'No shard could be handed over',
      `with mine as (
         select l.shard from ${q}.shard_leases l
         where l.owner = $1 and l.shard = any($2::smallint[]) and l.offer_ready and l.expires_at > now()
           and exists (select from ${q}.cluster_hosts h where h.host_id = l.offered_to and h.expires_at > now())
         order by l.shard for update
       ), moved as (
         update ${q}.shard_leases as l
         set owner = l.offered_to, epoch = l.epoch + 1, expires_at = now() + $3::bigint * interval '1 millisecond',
             offered_to = null, offer_ready = false
         from mine
         where l.shard = mine.shard
         returning l.shard
       )
       select shard, pg_notify($4, shard::text) from moved`,
      [hostId, [...new Set(shards)], leaseMs, this.channel],
    );
    return result.rows.map((r) => Number(r.shard)).sort((a, b) => a - b);
  }

  /**
   * The leases `hostId` holds now (owned and not expired), by shard.
   *
   * @throws ScheduleError `internal_error` for a bad host id; `persistence_uncertain` when the
   *   database cannot be reached.
   */
  async held(hostId: string): Promise<ShardLease[]> {
    checkHostId(hostId);
    const result = await this.run(
      'The shard leases could not be read',
      `select ${leaseColumns('l')} from ${this.quoted}.shard_leases as l where owner = $1 and expires_at > now() order by shard`,
      [hostId],
    );
    return result.rows.map(leaseOf);
  }

  /**
   * When each of `shards` next has a reminder due: the earliest `next_target` of its active
   * tasks, neither paused nor failing (those wait for a change or a retry, not for their time), in
   * ms since the epoch, for each shard that has one. A hand-off reads it to give up only shards
   * whose next reminder is far enough off that the time the shard has no owner — until the taker
   * has opened it — delays none.
   *
   * @throws ScheduleError `internal_error` for a bad list; `persistence_uncertain` when the
   *   database cannot be reached.
   */
  async nextDue(shards: readonly number[]): Promise<Map<number, number>> {
    checkShardList('nextDue', shards);
    if (shards.length === 0) return new Map();
    const q = this.quoted;
    const result = await this.run(
      "The shards' next reminders could not be read",
      `select s.shard, floor(extract(epoch from (
           select t.next_target from ${q}.tasks as t
           where t.status = 'active' and t.shard = s.shard and (t.row->>'pausedAt') is null and t.failure_stage is null
           order by t.next_target limit 1
         )) * 1000)::bigint::text as due_ms
       from unnest($1::smallint[]) as s(shard)`,
      [[...new Set(shards)]],
    );
    const due = new Map<number, number>();
    for (const row of result.rows) if (row.due_ms !== null && row.due_ms !== undefined) due.set(Number(row.shard), Number(row.due_ms));
    return due;
  }

  private run(what: string, text: string, values: readonly unknown[]): Promise<SqlResult> {
    return this.queries.run(what, text, values);
  }
}

/**
 * Shard leases on the schema of a PostgreSQL storage: `shardLeases({ pool, schema })`. The
 * schema is migrated on first use, as a storage's `open` does.
 */
export const shardLeases = (options: ShardLeasesOptions): ShardLeases => new ShardLeases(options);
