// The PostgreSQL schema the library owns, as versioned migrations (plain SQL, applied in order,
// each in its own transaction and recorded in `schema_migrations`), and the step that brings a
// database up to date. The step runs under a session advisory lock keyed on the schema name, so
// Hosts that start together migrate once; a database whose recorded version is newer than this
// code knows is refused (an older library must not write a schema it does not understand).
import { ScheduleError } from '../../domain/errors.ts';
import type { SqlClient } from './driver.ts';

/** One schema change. `sql` names the schema as `{schema}` (replaced by the quoted name). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The migrations, oldest first. Never edit a released one; add a new version instead.
 *
 * Version 1: one row per task (`row`: the task row as the file storage's codec encodes it, plus
 * the columns queries need), the task-number sequence behind `sch_<n>` ids, and `position`, the
 * order rows were first stored in (a put of an existing id keeps its place).
 *
 * Version 2: `domain_meta`, the domain's top-level members other than its rows and counter, one
 * row per member (today only `tzdata`, the time-zone data version the domain records).
 *
 * Version 3: `shard_leases`, one row per shard (0–255, all present from the start): the Host that
 * owns the shard (null while free), the epoch (grows each time a new owner takes the shard) and
 * when the lease expires, by the database's clock.
 *
 * Version 4: `cluster_hosts`, one row per Host sharing the schema: when its current membership
 * began and when it expires unless the Host renews it (its heartbeat), both by the database's
 * clock, so every Host counts the live ones alike.
 *
 * Version 5: `routed_calls`, the calls a Host hands to the owner of a Session's shard: the
 * request, its state (`pending`, `claimed` by a Host at an epoch of the shard, `answered` with
 * the reply) and the deadline after which no Host claims it. Request and reply are `json`, kept
 * as written (object members in their order), as the task rows are.
 *
 * Version 6: `committed_by` and `committed_epoch` on `tasks`, the Host and lease epoch of the
 * fenced commit that last wrote the row.
 *
 * Version 7: `storage_owner`, at most one row: the plain (unfenced) storage that writes the
 * schema — its random token, who it is, and when its lease runs out by the database's clock.
 *
 * Version 8: `remembered_calls`, the answers of idempotent calls by Session and `callId`.
 *
 * Version 9: `failure_stage`, `failure_attempts` and `failed_at` on `tasks`, null unless the row
 * carries a failure status (docs/delivery.md): the stage and count of its failed attempts and when
 * the latest failed, copied from the row for queries (the row itself holds the whole status), with
 * a partial index of the failing tasks by shard.
 *
 * Version 10: a shard's hand-over from Host to Host (docs/cluster.md): `offered_to` on
 * `shard_leases`, the Host its owner offers it to (null when not offered), and `offer_ready`, set by
 * that Host once it has read the shard; and an index of the tasks by shard, for the digest of a
 * shard's rows the taker checks.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'tasks',
    sql: `
create table {schema}.tasks (
  id text primary key,
  position bigint generated always as identity,
  session_id text not null,
  shard smallint not null check (shard between 0 and 255),
  status text not null check (status in ('active', 'inactive')),
  next_target timestamptz not null,
  version bigint not null default 1,
  row json not null
);
create index tasks_position on {schema}.tasks (position);
create index tasks_session on {schema}.tasks (session_id);
create index tasks_shard_due on {schema}.tasks (shard, next_target) where status = 'active';
create sequence {schema}.task_number as bigint minvalue 1 start 1;
`,
  },
  {
    version: 2,
    name: 'domain_meta',
    sql: `
create table {schema}.domain_meta (
  key text primary key,
  value text not null
);
`,
  },
  {
    version: 3,
    name: 'shard_leases',
    sql: `
create table {schema}.shard_leases (
  shard smallint primary key check (shard between 0 and 255),
  owner text,
  epoch bigint not null default 0 check (epoch >= 0),
  expires_at timestamptz not null default '-infinity'
);
insert into {schema}.shard_leases (shard) select g from generate_series(0, 255) as g on conflict (shard) do nothing;
`,
  },
  {
    version: 4,
    name: 'cluster_hosts',
    sql: `
create table {schema}.cluster_hosts (
  host_id text primary key,
  started_at timestamptz not null default now(),
  expires_at timestamptz not null
);
`,
  },
  {
    version: 5,
    name: 'routed_calls',
    sql: `
create table {schema}.routed_calls (
  id bigserial primary key,
  shard smallint not null check (shard between 0 and 255),
  session_id text not null,
  request json not null,
  status text not null default 'pending' check (status in ('pending', 'claimed', 'answered')),
  claimed_by text,
  claimed_epoch bigint,
  reply json,
  created_at timestamptz not null default now(),
  deadline timestamptz not null,
  answered_at timestamptz
);
create index routed_calls_pending on {schema}.routed_calls (shard, id) where status = 'pending';
create index routed_calls_claimed on {schema}.routed_calls (shard) where status = 'claimed';
create index routed_calls_deadline on {schema}.routed_calls (deadline);
`,
  },
  {
    version: 6,
    name: 'tasks_committed_by',
    sql: `
alter table {schema}.tasks add column committed_by text, add column committed_epoch bigint;
`,
  },
  {
    version: 7,
    name: 'storage_owner',
    sql: `
create table {schema}.storage_owner (
  singleton boolean primary key default true check (singleton),
  token text not null,
  holder json not null,
  since timestamptz not null default now(),
  expires_at timestamptz not null
);
`,
  },
  {
    version: 8,
    name: 'remembered_calls',
    sql: `
create table {schema}.remembered_calls (
  session_id text not null,
  call_id text not null,
  shard smallint not null,
  operation text not null,
  arguments text not null,
  answer json not null,
  called_at timestamptz not null,
  position bigserial not null,
  primary key (session_id, call_id)
);
create index remembered_calls_shard on {schema}.remembered_calls (shard);
`,
  },
  {
    version: 9,
    name: 'tasks_failure',
    sql: `
alter table {schema}.tasks
  add column failure_stage text check (failure_stage in ('resolve', 'followup', 'flush', 'commit')),
  add column failure_attempts integer check (failure_attempts >= 1),
  add column failed_at timestamptz;
create index tasks_failing on {schema}.tasks (shard) where failure_stage is not null;
`,
  },
  {
    version: 10,
    name: 'shard_handover',
    sql: `
alter table {schema}.shard_leases add column offered_to text, add column offer_ready boolean not null default false;
create index tasks_shard on {schema}.tasks (shard);
`,
  },
];

/** The newest schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The schema name as a quoted SQL identifier.
 *
 * @throws ScheduleError `internal_error` for a name that is not a plain identifier.
 */
export function quoteSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new ScheduleError(
      'internal_error',
      `The PostgreSQL schema name ${JSON.stringify(schema)} is not a plain identifier (letters, digits and _, at most 63, not starting with a digit).`,
    );
  }
  return `"${schema}"`;
}

/** What one migration run did. */
export interface MigrationResult {
  /** The schema version the database had before (0 for a fresh schema). */
  readonly from: number;
  /** The schema version it has now. */
  readonly to: number;
  /** The versions this run applied (empty when another Host had already applied them). */
  readonly applied: readonly number[];
}

const toInt = (value: unknown): number => (typeof value === 'number' ? value : Number(value));

/**
 * Brings `schema` up to {@link SCHEMA_VERSION} on one connection, under a session advisory lock
 * (a second caller waits, then finds nothing to do).
 *
 * @throws ScheduleError `corrupt_schedule_log` when the database's version is newer than this
 *   code's; driver errors are passed through.
 */
export async function migrate(client: SqlClient, schema: string): Promise<MigrationResult> {
  const quoted = quoteSchema(schema);
  // A schema already at this version needs no lock: every storage of a cluster opens (one per
  // shard) without queueing on the lock behind the others.
  const present = await client.query('select to_regclass($1) is not null as present', [`${quoted}.schema_migrations`]);
  if (present.rows[0]?.present === true) {
    const current = await client.query(`select coalesce(max(version), 0) as version from ${quoted}.schema_migrations`);
    const version = toInt(current.rows[0]?.version ?? 0);
    if (version === SCHEMA_VERSION) return { from: version, to: version, applied: [] };
  }
  const lockKey = `agent-schedule migrate ${schema}`;
  await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
  try {
    await client.query(`create schema if not exists ${quoted}`);
    await client.query(
      `create table if not exists ${quoted}.schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`,
    );
    const current = await client.query(`select coalesce(max(version), 0) as version from ${quoted}.schema_migrations`);
    const from = toInt(current.rows[0]?.version ?? 0);
    if (from > SCHEMA_VERSION) {
      throw new ScheduleError(
        'corrupt_schedule_log',
        `The PostgreSQL schema ${JSON.stringify(schema)} is at version ${from}, newer than this agent-schedule knows (${SCHEMA_VERSION}); upgrade agent-schedule to open it. Nothing was changed.`,
      );
    }
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      await client.query('begin');
      try {
        await client.query(migration.sql.replaceAll('{schema}', quoted));
        await client.query(`insert into ${quoted}.schema_migrations (version, name) values ($1, $2)`, [migration.version, migration.name]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      }
      applied.push(migration.version);
    }
    return { from, to: Math.max(from, SCHEMA_VERSION), applied };
  } finally {
    await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [lockKey]).catch(() => undefined);
  }
}
