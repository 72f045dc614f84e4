// What any Host of a cluster reads straight from the shared schema, whoever holds the shards: every
// task row (decoded strictly and checked against its columns, as an open reads it), the time-zone
// data version the schema records, and who holds what — the live Hosts of `cluster_hosts` and the
// owner, epoch and expiry of each of the 256 `shard_leases`. Each read is one statement; the
// database's clock says which Hosts and leases are live. Nothing here writes.
import type { SqlPool } from '../adapters/postgres/driver.ts';
import { quoteSchema } from '../adapters/postgres/migrations.ts';
import { SchemaQueries } from '../adapters/postgres/schemaQueries.ts';
import { decodeRows, ROW_COLUMNS, rowsQuery } from '../adapters/postgres/storedRows.ts';
import { decodeTzdata } from '../domain/codec/index.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { ClusterMember, ClusterTopology, ShardOwnership } from '../ports.ts';

/** Every task row of the schema, with the time-zone data version its domain records. */
export interface ClusterRows {
  readonly rows: TaskRow[];
  /** The version the schema records (absent when it never recorded one). */
  readonly writtenWith?: string;
}

const iso = (value: unknown): string => new Date(value as string | Date).toISOString();

/** The read-only queries on one cluster schema. */
export class ClusterReader {
  private readonly quoted: string;
  private readonly queries: SchemaQueries;

  constructor(
    pool: SqlPool,
    private readonly schema: string,
  ) {
    this.quoted = quoteSchema(schema);
    this.queries = new SchemaQueries(pool, schema, 'The cluster could not open its schema');
  }

  /**
   * Every task row in the schema, in the order they were stored.
   *
   * @throws ScheduleError `corrupt_schedule_log` for a row that does not decode or disagrees with its columns; `persistence_uncertain` when the database cannot be read.
   */
  async rows(): Promise<ClusterRows> {
    const q = this.quoted;
    const result = await this.queries.run(
      'The cluster could not read the task rows',
      `(select ${ROW_COLUMNS}, position, null::text as tzdata from ${q}.tasks)
       union all
       (select null, null, null, null, null, null, null, value::text from ${q}.domain_meta where key = 'tzdata')
       order by position nulls last`,
      [],
    );
    // The version's row has no position, so it sorts last.
    const meta = result.rows.at(-1);
    const tzdata = meta !== undefined && meta.id === null ? String(meta.tzdata) : undefined;
    const rows = decodeRows(this.schema, tzdata === undefined ? result.rows : result.rows.slice(0, -1));
    const written = decodeTzdata(tzdata === undefined ? {} : { tzdata }, `${this.schema}.domain_meta`);
    return written.tzdata === undefined ? { rows } : { rows, writtenWith: written.tzdata };
  }

  /**
   * Every task row of one Session, in the order they were stored (one statement, by the
   * `session_id` index), decoded and checked as an open checks them.
   *
   * @throws ScheduleError `corrupt_schedule_log` for a row that does not decode; `persistence_uncertain` when the database cannot be read.
   */
  async sessionRows(sessionId: string): Promise<TaskRow[]> {
    const { text, values } = rowsQuery(this.quoted, undefined, { kind: 'sessions', sessionIds: [sessionId] });
    const result = await this.queries.run("The Session's task rows could not be read", text, values);
    return decodeRows(this.schema, result.rows);
  }

  /**
   * The live Hosts and every shard's lease, by the database's clock.
   *
   * @throws ScheduleError `persistence_uncertain` when the database cannot be read.
   */
  async topology(): Promise<ClusterTopology> {
    const q = this.quoted;
    const result = await this.queries.run(
      'The cluster could not read its members and leases',
      `select 'host' as kind, host_id as owner, null::smallint as shard, null::bigint as epoch, started_at, expires_at, now() as now
         from ${q}.cluster_hosts where expires_at > now()
       union all
       select 'shard', case when expires_at > now() then owner end, shard, epoch, null,
              case when expires_at = '-infinity' then null else expires_at end, now()
         from ${q}.shard_leases
       order by kind, started_at, owner, shard`,
      [],
    );
    const hosts: ClusterMember[] = [];
    const shards: ShardOwnership[] = [];
    let now = new Date().toISOString();
    for (const row of result.rows) {
      now = iso(row.now);
      if (row.kind === 'host') {
        hosts.push({ hostId: String(row.owner), startedAt: iso(row.started_at), expiresAt: iso(row.expires_at) });
      } else {
        shards.push({
          shard: Number(row.shard),
          owner: row.owner === null || row.owner === undefined ? null : String(row.owner),
          epoch: Number(row.epoch),
          expiresAt: row.expires_at === null || row.expires_at === undefined ? null : iso(row.expires_at),
        });
      }
    }
    shards.sort((a, b) => a.shard - b.shard);
    return { now, hosts, shards };
  }
}
