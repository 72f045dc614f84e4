// A commit as one statement: the guard (the fence's lease check, or the plain storage's owner
// renewal) and every write of the batch in one `WITH` statement, so a commit is one round trip and
// its own transaction. Each write is conditioned on the guard's verdict, computed first and once
// (a materialised CTE every write reads), so a batch whose guard fails writes nothing and the
// statement answers why. The fence locks the lease rows `FOR KEY SHARE` in shard order, as the
// separate check does, and holds them until the statement commits. A put whose id another
// Session's task holds makes the statement fail (a division by zero the verdict row computes), so
// nothing of the batch is written; the caller then names the id. Batches that must move the task
// number sequence, or that forget and remember the same call, take the transaction of several
// statements instead (see postgresStorage.ts).

import { createHash } from 'node:crypto';
import { shardOf } from '../../domain/tasks/sessionShard.ts';
import type { PreparedBatch } from '../domainState.ts';
import type { NamedStatement, SqlClient } from './driver.ts';
import type { LeaseFence } from './fence.ts';
import type { StoredRowColumns } from './rowColumns.ts';

/** What a one-statement commit checks before it writes. */
export type CommitGuard =
  | { readonly kind: 'fence'; readonly fence: LeaseFence; readonly epochs: ReadonlyMap<number, number> }
  | { readonly kind: 'owner'; readonly token: string; readonly leaseMs: number }
  | { readonly kind: 'none' };

/** The statement of a one-statement commit and its values. */
export interface CommitStatement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/** The SQLSTATE of the failure the statement raises when a put's id is another Session's. */
export const TAKEN_ID_STATE = '22012';

/** True when the batch can be written by one statement (see the file comment). */
export function fitsOneStatement(batch: PreparedBatch): boolean {
  const forget = batch.forgetCalls ?? [];
  if (forget.length === 0 || (batch.calls ?? []).length === 0) return true;
  const key = (ref: { sessionId: string; callId: string }) => JSON.stringify([ref.sessionId, ref.callId]);
  const forgotten = new Set(forget.map(key));
  return !(batch.calls ?? []).some((call) => forgotten.has(key(call)));
}

/**
 * The one statement writing `batch` (whose puts are `columns`) under `guard`. It answers one row:
 * `ok` (the guard held; when false nothing was written), and for a fence the lease rows it read
 * (`leases`, JSON) and the shards it checked (`touched`).
 */
export function commitStatement(
  q: string,
  batch: PreparedBatch,
  columns: readonly StoredRowColumns[],
  guard: CommitGuard,
): CommitStatement {
  const values: unknown[] = [];
  const $ = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const ctes: string[] = [];
  const ok = '(select ok from verdict)';
  const deletes = batch.deletes.length > 0 ? $(batch.deletes) : undefined;
  const writer = guard.kind === 'fence' ? guard.fence.hostId : null;
  const epochOf = (shard: number): number | null => (guard.kind === 'fence' ? (guard.epochs.get(shard) ?? null) : null);
  let touched = 'null::smallint[]';

  if (guard.kind === 'fence') {
    const named = new Set(columns.map((c) => c.shard));
    for (const call of [...(batch.calls ?? []), ...(batch.forgetCalls ?? [])]) named.add(shardOf(call.sessionId));
    const stored = deletes === undefined ? '' : ` union select shard from ${q}.tasks where id = any(${deletes}::text[])`;
    const heldShards = [...guard.epochs.keys()];
    ctes.push(
      `touched as materialized (select unnest(${$([...named])}::smallint[]) as shard${stored})`,
      `lease as materialized (
         select l.shard, l.owner, l.epoch, l.expires_at > now() as live from ${q}.shard_leases l
         where l.shard in (select shard from touched) order by l.shard for key share
       )`,
      `verdict as materialized (
         select not exists (
           select from touched t
           left join unnest(${$(heldShards)}::smallint[], ${$(heldShards.map((s) => guard.epochs.get(s)))}::bigint[]) as f(shard, epoch)
             on f.shard = t.shard
           left join lease l on l.shard = t.shard
           where f.epoch is null or l.shard is null or l.owner is distinct from ${$(guard.fence.hostId)}::text
             or l.epoch <> f.epoch or not l.live
         ) as ok
       )`,
    );
    touched = '(select coalesce(array_agg(shard order by shard), array[]::smallint[]) from touched)';
  } else if (guard.kind === 'owner') {
    ctes.push(
      `renewed as materialized (
         update ${q}.storage_owner set expires_at = now() + ${$(guard.leaseMs)}::bigint * interval '1 millisecond'
         where token = ${$(guard.token)} returning 1
       )`,
      'verdict as materialized (select exists (select from renewed) as ok)',
    );
  } else {
    ctes.push('verdict as materialized (select true as ok)');
  }

  if (deletes !== undefined) {
    // Only rows of the checked shards are deleted (a row stored since the look-up is not this batch's to remove).
    const scope = guard.kind === 'fence' ? ' and shard in (select shard from touched)' : '';
    ctes.push(`removed as (delete from ${q}.tasks where id = any(${deletes}::text[])${scope} and ${ok} returning 1)`);
  }
  if (columns.length > 0) {
    ctes.push(`put as (
       insert into ${q}.tasks as t (id, session_id, shard, status, next_target, row, committed_by, committed_epoch,
         failure_stage, failure_attempts, failed_at)
       select id, session_id, shard, status, next_target, row, ${$(writer)}::text, committed_epoch, failure_stage, failure_attempts, failed_at
       from unnest(${$(columns.map((c) => c.id))}::text[], ${$(columns.map((c) => c.sessionId))}::text[],
           ${$(columns.map((c) => c.shard))}::smallint[], ${$(columns.map((c) => c.status))}::text[],
           ${$(columns.map((c) => c.nextTarget))}::timestamptz[], ${$(columns.map((c) => c.row))}::json[],
           ${$(columns.map((c) => epochOf(c.shard)))}::bigint[], ${$(columns.map((c) => c.failureStage))}::text[],
           ${$(columns.map((c) => c.failureAttempts))}::integer[], ${$(columns.map((c) => c.failedAt))}::timestamptz[])
         with ordinality as u(id, session_id, shard, status, next_target, row, committed_epoch, failure_stage, failure_attempts, failed_at, ord)
       where ${ok}
       order by ord
       on conflict (id) do update set shard = excluded.shard, status = excluded.status, next_target = excluded.next_target,
         row = excluded.row, version = t.version + 1, committed_by = excluded.committed_by, committed_epoch = excluded.committed_epoch,
         failure_stage = excluded.failure_stage, failure_attempts = excluded.failure_attempts, failed_at = excluded.failed_at
       where t.session_id = excluded.session_id
       returning 1
     )`);
  }
  const forget = batch.forgetCalls ?? [];
  if (forget.length > 0) {
    ctes.push(`forgot as (
       delete from ${q}.remembered_calls c
       using unnest(${$(forget.map((f) => f.sessionId))}::text[], ${$(forget.map((f) => f.callId))}::text[]) as f(session_id, call_id)
       where c.session_id = f.session_id and c.call_id = f.call_id and ${ok}
       returning 1
     )`);
  }
  const calls = batch.calls ?? [];
  if (calls.length > 0) {
    // A call already stored (the batch of an uncertain write sent again) is kept as it was.
    ctes.push(`remembered as (
       insert into ${q}.remembered_calls (session_id, call_id, shard, operation, arguments, answer, called_at)
       select * from unnest(${$(calls.map((c) => c.sessionId))}::text[], ${$(calls.map((c) => c.callId))}::text[],
         ${$(calls.map((c) => shardOf(c.sessionId)))}::smallint[], ${$(calls.map((c) => c.operation))}::text[],
         ${$(calls.map((c) => c.arguments))}::text[], ${$(calls.map((c) => JSON.stringify(c.answer)))}::json[],
         ${$(calls.map((c) => c.calledAt))}::timestamptz[])
       where ${ok}
       on conflict (session_id, call_id) do nothing
       returning 1
     )`);
  }
  if (batch.tzdata !== undefined) {
    ctes.push(`meta as (
       insert into ${q}.domain_meta (key, value) select 'tzdata', ${$(batch.tzdata)}::text where ${ok}
       on conflict (key) do update set value = excluded.value
       returning 1
     )`);
  }
  // Every put either inserts or updates a row of its own Session; one that did neither names an id
  // another Session holds, and the division by zero fails the whole statement.
  const written = columns.length > 0 ? '(select count(*) from put)' : '0';
  const check = `${written} / ((not v.ok) or ${written} = ${$(columns.length)}::bigint)::int as checked`;
  const leases =
    guard.kind === 'fence'
      ? `(select json_agg(json_build_object('shard', shard, 'owner', owner, 'epoch', epoch::text, 'live', live)) from lease)::text as leases`
      : 'null::text as leases';
  return {
    text: `with ${ctes.join(',\n')}
      select v.ok, ${check}, ${leases}, ${touched}::text as touched from verdict v`,
    values,
  };
}

/** The first put of `columns` whose id another Session's task holds (after the statement failed so). */
export async function takenId(client: SqlClient, q: string, columns: readonly StoredRowColumns[]): Promise<string> {
  const found = await client.query(
    `select t.id from ${q}.tasks t join unnest($1::text[], $2::text[]) with ordinality as u(id, session_id, ord)
       on t.id = u.id and t.session_id <> u.session_id
     order by u.ord limit 1`,
    [columns.map((c) => c.id), columns.map((c) => c.sessionId)],
  );
  return String(found.rows[0]?.id ?? '?');
}

/** Names given so far, by statement text. */
const statementNames = new Map<string, string>();
/**
 * The most statement texts named in one process. A commit's text depends only on which parts its
 * batch has (its guard, deletes, puts, calls) and its schema, not on its rows, so a process sees a
 * few dozen; past the bound a statement is sent unnamed.
 */
const MAX_NAMED = 256;

/**
 * The statement as a named one, so a connection has the server parse and plan it once. The name is
 * a digest of the text: storages sharing a pool (a cluster Host's shards) and connections never
 * give one name two texts.
 */
export function namedStatement(statement: CommitStatement): NamedStatement | undefined {
  let name = statementNames.get(statement.text);
  if (name === undefined) {
    if (statementNames.size >= MAX_NAMED) return undefined;
    name = `agent_schedule_${createHash('sha256').update(statement.text).digest('hex').slice(0, 32)}`;
    statementNames.set(statement.text, name);
  }
  return { name, text: statement.text, values: statement.values };
}
