// The cluster trials' audit, installed by the harness (never by the library) in the trial's
// schema: a trigger on `tasks` logging every insert and update with the `committed_by` and
// `committed_epoch` the row names and the shard's lease row (owner, epoch, expiry) at that moment,
// and a trigger on `shard_leases` logging every change of owner or epoch (and whom the lease was
// offered to before it, so a hand-over is told from a takeover). The check reads both
// logs: every logged commit names a Host and epoch, was made while that Host held the lease at
// that epoch unexpired, and before the shard's next epoch began.
import type { SqlPool } from '../../../src/adapters/postgres/driver.ts';
import { run } from '../../storage/postgresHarness.ts';

/** Installs the audit tables and triggers in `schema` (after seeding: the seed's commits are unfenced). */
export async function installAudit(pool: SqlPool, schema: string): Promise<void> {
  const q = `"${schema}"`;
  await run(
    pool,
    `
create table ${q}.audit_commits (
  id bigserial primary key,
  at timestamptz not null default clock_timestamp(),
  tx_start timestamptz not null default now(),
  op text not null,
  task_id text not null,
  shard smallint not null,
  committed_by text,
  committed_epoch bigint,
  lease_owner text,
  lease_epoch bigint,
  lease_expires timestamptz,
  title text,
  last_delivery text
);
create table ${q}.audit_leases (
  id bigserial primary key,
  at timestamptz not null default clock_timestamp(),
  shard smallint not null,
  old_owner text,
  old_epoch bigint,
  owner text,
  epoch bigint not null,
  expires_at timestamptz not null,
  old_offered_to text,
  old_offer_ready boolean
);
create function ${q}.audit_task() returns trigger language plpgsql as $$
begin
  insert into ${q}.audit_commits (op, task_id, shard, committed_by, committed_epoch, lease_owner, lease_epoch, lease_expires, title, last_delivery)
  select tg_op, new.id, new.shard, new.committed_by, new.committed_epoch, l.owner, l.epoch, l.expires_at,
    new.row->'record'->>'title', new.row->'lastDelivery'->>'scheduledAt'
  from ${q}.shard_leases l where l.shard = new.shard;
  return new;
end $$;
create function ${q}.audit_lease() returns trigger language plpgsql as $$
begin
  insert into ${q}.audit_leases (shard, old_owner, old_epoch, owner, epoch, expires_at, old_offered_to, old_offer_ready)
  values (new.shard, old.owner, old.epoch, new.owner, new.epoch, new.expires_at, old.offered_to, old.offer_ready);
  return new;
end $$;
create trigger audit_task after insert or update on ${q}.tasks for each row execute function ${q}.audit_task();
create trigger audit_lease after update on ${q}.shard_leases for each row
  when (old.owner is distinct from new.owner or old.epoch is distinct from new.epoch)
  execute function ${q}.audit_lease();
`,
  );
}

/** What the audit found. */
export interface AuditFindings {
  readonly commits: number;
  readonly ownershipChanges: number;
  /** Of those, the leases moved by a hand-over: from their owner straight to the Host they were offered to, which was ready. */
  readonly handOvers: number;
  readonly problems: string[];
}

/** Checks every logged commit against the lease it names and the ownership log. */
export async function checkAudit(pool: SqlPool, schema: string): Promise<AuditFindings> {
  const q = `"${schema}"`;
  const problems: string[] = [];
  const counts = await run(
    pool,
    `select (select count(*) from ${q}.audit_commits) as c, (select count(*) from ${q}.audit_leases) as l,
       (select count(*) from ${q}.audit_leases where old_offer_ready and owner = old_offered_to and old_owner is not null) as h`,
  );
  const bad = await run(
    pool,
    `select id, task_id, shard, committed_by, committed_epoch::text, lease_owner, lease_epoch::text, lease_expires, tx_start, at
     from ${q}.audit_commits
     where committed_by is null or committed_epoch is null or lease_owner is distinct from committed_by
        or lease_epoch is distinct from committed_epoch or not (lease_expires > tx_start)
     order by id limit 20`,
  );
  for (const row of bad.rows) problems.push(`commit not under the lease it names: ${JSON.stringify(row)}`);
  // A commit after the shard's next epoch began (the takeover must wait for the commit's lock).
  const late = await run(
    pool,
    `select c.id, c.task_id, c.shard, c.committed_by, c.committed_epoch::text, c.at, l.owner as next_owner, l.epoch::text as next_epoch, l.at as next_began
     from ${q}.audit_commits c
     join lateral (select * from ${q}.audit_leases l where l.shard = c.shard and l.epoch > c.committed_epoch order by l.id limit 1) l on true
     where l.at <= c.at
     order by c.id limit 20`,
  );
  for (const row of late.rows) problems.push(`commit after the lease's next epoch began: ${JSON.stringify(row)}`);
  const row = counts.rows[0] ?? {};
  return { commits: Number(row.c), ownershipChanges: Number(row.l), handOvers: Number(row.h), problems };
}
