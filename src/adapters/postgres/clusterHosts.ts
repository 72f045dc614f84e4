// Cluster membership: the Hosts sharing one schema, kept in its `cluster_hosts` table. A Host's
// heartbeat inserts or extends its row (`expires_at`, by the database's clock) and, in the same
// statement, reads the live Hosts in the order they joined, so every Host counts and ranks them
// alike. A Host whose row expired is not live; when it beats again it rejoins as a newcomer. Rows
// expired for a day are swept by the next heartbeat of any Host. The same statement answers when the
// next other Host's membership or lease runs out, so a keeper can step right then, and how the
// shards stand — how many each Host holds, how many are free, how many wait for a new owner after
// their lease ran out, how many are offered to each Host, and which are offered to this one — so a
// keeper hands shards on only as fast as they are taken. A heartbeat that starts a membership (a
// Host's first, or its first after its row expired) notifies `joined:<host>` on the calls channel,
// so the Hosts holding shards step at once and offer the newcomer its share rather than at their
// next regular step.
import type { SqlPool } from './driver.ts';
import { quoteSchema } from './migrations.ts';
import { callsChannel } from './notificationListener.ts';
import { SchemaQueries } from './schemaQueries.ts';
import { checkHostId } from './shardLeases.ts';

/** How the notification of a Host's arrival begins; the Host's id follows. */
export const JOINED_PREFIX = 'joined:';

const JOINED_NOTICE = `'${JOINED_PREFIX}'`;

/** The live Hosts as one heartbeat saw them. */
export interface ClusterView {
  /** The live Hosts (this one included), oldest membership first, ties by id. */
  readonly hosts: readonly string[];
  /** How long each live Host has been a member, ms by the database's clock (the order of `hosts`). */
  readonly ages: readonly number[];
  /** This Host's place in `hosts` (0 for the oldest). */
  readonly rank: number;
  /** The database's clock when the heartbeat ran, in ms since the epoch. */
  readonly databaseNowMs: number;
  /**
   * The earliest instant (database clock, ms since the epoch) at which another Host's membership
   * or a lease another Host owns runs out, unless renewed first; `null` when none is pending. A
   * Host that renews on time is always at least two thirds of a lease away, so an instant closer
   * than the next step means a Host has missed its renewals.
   */
  readonly nextLapseMs: number | null;
  /** Unexpired leases per owner (Hosts holding none are absent). */
  readonly heldBy: ReadonlyMap<string, number>;
  /** Shards with no owner (never held, or released) and not yet taken. */
  readonly free: number;
  /** Shards whose owner let the lease run out, not yet taken over. */
  readonly expired: number;
  /** Shards offered to each Host by their owners (Hosts offered none are absent). */
  readonly offeredTo: ReadonlyMap<string, number>;
  /** The shards offered to this Host, by shard, with the epoch their owner holds them at and whether this Host said it is ready. */
  readonly offers: readonly { readonly shard: number; readonly epoch: number; readonly ready: boolean }[];
}

/** A `json` column as the driver answers it (parsed, or text), or `fallback` for null. */
const jsonOf = (value: unknown, fallback: unknown): unknown =>
  typeof value === 'string' ? JSON.parse(value) : value === null || value === undefined ? fallback : value;

/** Options of {@link ClusterHosts}. */
export interface ClusterHostsOptions {
  /** The pool to run on; never ended here. */
  readonly pool: SqlPool;
  /** The schema holding the tables; migrated on first use. */
  readonly schema: string;
}

/** The membership table of one schema. */
export class ClusterHosts {
  private readonly quoted: string;
  private readonly queries: SchemaQueries;
  private readonly channel: string;

  constructor(options: ClusterHostsOptions) {
    this.quoted = quoteSchema(options.schema);
    this.channel = callsChannel(options.schema);
    this.queries = new SchemaQueries(options.pool, options.schema, 'The cluster membership could not open its schema');
  }

  /**
   * Renews (or starts) `hostId`'s membership for `ttlMs` and answers the live Hosts; a membership
   * started notifies `joined:<hostId>` on the calls channel.
   *
   * @throws ScheduleError `persistence_uncertain` when the database cannot be reached or did not answer.
   */
  async heartbeat(hostId: string, ttlMs: number): Promise<ClusterView> {
    checkHostId(hostId);
    const q = this.quoted;
    const result = await this.queries.run(
      'The cluster membership could not be renewed',
      `with beat as (
         insert into ${q}.cluster_hosts as h (host_id, started_at, expires_at)
         values ($1, now(), now() + $2::bigint * interval '1 millisecond')
         on conflict (host_id) do update
           set started_at = case when h.expires_at <= now() then now() else h.started_at end,
               expires_at = excluded.expires_at
         returning h.host_id, h.started_at
       ), swept as (
         delete from ${q}.cluster_hosts where expires_at < now() - interval '1 day' and host_id <> $1
       )
       select host_id, floor(extract(epoch from now()) * 1000)::bigint::text as now_ms,
         -- Read for its effect only: a membership this statement started is notified, once.
         (select count(pg_notify($3, ${JOINED_NOTICE} || host_id)) from beat where started_at = now())::int as joined,
         floor(extract(epoch from now() - started_at) * 1000)::bigint::text as age_ms,
         floor(extract(epoch from least(
           (select min(expires_at) from ${q}.cluster_hosts where host_id <> $1 and expires_at > now()),
           (select min(expires_at) from ${q}.shard_leases where owner <> $1 and expires_at > now())
         )) * 1000)::bigint::text as lapse_ms,
         (select count(*) from ${q}.shard_leases where owner is null)::int as free,
         (select count(*) from ${q}.shard_leases where owner is not null and expires_at <= now())::int as expired,
         (select json_object_agg(owner, n) from (
            select owner, count(*)::int as n from ${q}.shard_leases where owner is not null and expires_at > now() group by owner
          ) as counts) as held_by,
         (select json_object_agg(offered_to, n) from (
            select offered_to, count(*)::int as n from ${q}.shard_leases
            where offered_to is not null and owner is not null and expires_at > now() group by offered_to
          ) as offered) as offered_to,
         (select json_agg(json_build_array(shard, epoch::text, offer_ready) order by shard) from ${q}.shard_leases
           where offered_to = $1 and owner is distinct from $1 and expires_at > now()) as offers
       from (
         select host_id, started_at from beat
         union all
         select host_id, started_at from ${q}.cluster_hosts where expires_at > now() and host_id <> $1
       ) as live
       order by started_at, host_id`,
      [hostId, ttlMs, this.channel],
    );
    const hosts = result.rows.map((r) => String(r.host_id));
    const first = result.rows[0];
    const lapse = first?.lapse_ms;
    const heldBy = jsonOf(first?.held_by, {}) as Record<string, number>;
    const offeredTo = jsonOf(first?.offered_to, {}) as Record<string, number>;
    const offers = jsonOf(first?.offers, []) as [number, string, boolean][];
    return {
      hosts,
      ages: result.rows.map((r) => Math.max(0, Number(r.age_ms))),
      rank: hosts.indexOf(hostId),
      databaseNowMs: Number(first?.now_ms),
      nextLapseMs: lapse === null || lapse === undefined ? null : Number(lapse),
      heldBy: new Map(Object.entries(heldBy).map(([owner, n]) => [owner, Number(n)])),
      free: Number(first?.free ?? 0),
      expired: Number(first?.expired ?? 0),
      offeredTo: new Map(Object.entries(offeredTo).map(([to, n]) => [to, Number(n)])),
      offers: offers.map(([shard, epoch, ready]) => ({ shard: Number(shard), epoch: Number(epoch), ready: ready === true })),
    };
  }

  /**
   * Ends `hostId`'s membership; answers whether it had a row.
   *
   * @throws ScheduleError `persistence_uncertain` when the database cannot be reached or did not answer.
   */
  async leave(hostId: string): Promise<boolean> {
    checkHostId(hostId);
    const result = await this.queries.run(
      'The cluster membership could not be ended',
      `delete from ${this.quoted}.cluster_hosts where host_id = $1`,
      [hostId],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
