// Reading task rows back from the `tasks` table: each row's JSON decoded as strictly as the file
// storage decodes its own, and its columns checked against it, so a row edited by hand (or by
// another version) is refused by name, not half-read. An open reads every row, or only the active
// ones due soon; the rest is read on demand by Session, by due time, or all at once.
import { decodeRow } from '../../domain/codec/row.ts';
import { corrupt } from '../../domain/codec/strict.ts';
import { SHARDS, shardOf } from '../../domain/tasks/sessionShard.ts';
import type { TaskRow } from '../../domain/tasks/types.ts';
import { reasonOf, type SqlClient } from './driver.ts';

const ALL_SHARDS: readonly number[] = Array.from({ length: SHARDS }, (_, shard) => shard);

/** Which rows a read takes; each adds its condition to the shard scope. */
export type RowFilter =
  | { readonly kind: 'all' }
  | { readonly kind: 'dueBefore'; readonly until: number }
  | { readonly kind: 'dueBetween'; readonly from: number; readonly until: number }
  | { readonly kind: 'sessions'; readonly sessionIds: readonly string[] };

/** The columns a read of task rows selects, as {@link decodeRows} reads them. */
export const ROW_COLUMNS =
  'id, session_id, shard, status, floor(extract(epoch from next_target) * 1000)::bigint::text as next_target_ms, row::text as row';

/** The statement reading the rows of `filter` within `shards` (every shard when undefined), in stored order. */
export function rowsQuery(
  quoted: string,
  shards: readonly number[] | undefined,
  filter: RowFilter,
): { readonly text: string; readonly values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const bind = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  const instant = (ms: number): string => `${bind(new Date(ms).toISOString())}::timestamptz`;
  // A read by due time names every shard when unscoped, so the (shard, next_target) index serves it.
  const scope = shards ?? (filter.kind === 'dueBefore' || filter.kind === 'dueBetween' ? ALL_SHARDS : undefined);
  if (scope !== undefined) where.push(`shard = any(${bind(scope)}::smallint[])`);
  if (filter.kind === 'dueBefore') where.push(`status = 'active' and next_target < ${instant(filter.until)}`);
  if (filter.kind === 'dueBetween') {
    where.push(`status = 'active' and next_target >= ${instant(filter.from)} and next_target < ${instant(filter.until)}`);
  }
  if (filter.kind === 'sessions') where.push(`session_id = any(${bind(filter.sessionIds)}::text[])`);
  const text = `select ${ROW_COLUMNS} from ${quoted}.tasks${where.length === 0 ? '' : ` where ${where.join(' and ')}`} order by position`;
  return { text, values };
}

/**
 * The rows a {@link rowsQuery} answered, decoded and checked.
 *
 * @throws ScheduleError `corrupt_schedule_log` naming the first row that does not decode or disagrees with its columns.
 */
export const decodeRows = (schema: string, stored: readonly Record<string, unknown>[]): TaskRow[] =>
  stored.map((row) => decodeStored(row, `PostgreSQL table ${schema}.tasks`));

/** The rows of `filter` within `shards` (every shard when undefined), in stored order, decoded and checked. */
export async function readRows(
  client: SqlClient,
  schema: string,
  quoted: string,
  shards: readonly number[] | undefined,
  filter: RowFilter,
): Promise<TaskRow[]> {
  const { text, values } = rowsQuery(quoted, shards, filter);
  const result = await client.query(text, values);
  return decodeRows(schema, result.rows);
}

/**
 * One stored row, decoded strictly and checked against its columns.
 *
 * @throws ScheduleError `corrupt_schedule_log` naming the row.
 */
function decodeStored(stored: Record<string, unknown>, source: string): TaskRow {
  const id = String(stored.id);
  const where = `${source}: row ${JSON.stringify(id)}`;
  let value: unknown;
  try {
    value = JSON.parse(String(stored.row));
  } catch (error) {
    corrupt(where, 'row', `is not JSON (${reasonOf(error)})`);
  }
  const row = decodeRow(value, where);
  const mismatch =
    row.record.id !== id
      ? ['record.id', `is ${JSON.stringify(row.record.id)}, but the row's id column is ${JSON.stringify(id)}`]
      : row.sessionId !== stored.session_id
        ? ['sessionId', `is ${JSON.stringify(row.sessionId)}, but the session_id column is ${JSON.stringify(stored.session_id)}`]
        : row.status !== stored.status
          ? ['status', `is ${JSON.stringify(row.status)}, but the status column is ${JSON.stringify(stored.status)}`]
          : Number(stored.shard) !== shardOf(row.sessionId)
            ? ['sessionId', `belongs to shard ${shardOf(row.sessionId)}, but the shard column is ${String(stored.shard)}`]
            : Number(stored.next_target_ms) !== Date.parse(row.record.scheduledAt)
              ? ['record.scheduledAt', `is ${row.record.scheduledAt}, but the next_target column differs`]
              : undefined;
  if (mismatch !== undefined) corrupt(where, mismatch[0] ?? '', mismatch[1] ?? '');
  return row;
}

/**
 * The statement counting the rows of `shards` outside `held`: all, inactive, active paused (the
 * row's `pausedAt`) and active failing (its `failure_stage` column).
 */
export function unreadCountsQuery(
  quoted: string,
  shards: readonly number[] | undefined,
  held: { readonly dueBefore: number; readonly sessions: readonly string[]; readonly ids: readonly string[] },
): { readonly text: string; readonly values: unknown[] } {
  const values: unknown[] = [new Date(held.dueBefore).toISOString(), held.sessions, held.ids];
  const scope = shards === undefined ? '' : ' and shard = any($4::smallint[])';
  if (shards !== undefined) values.push(shards);
  const text = `select count(*)::int as total,
         count(*) filter (where status = 'inactive')::int as ended,
         count(*) filter (where status = 'active' and (row->>'pausedAt') is not null)::int as paused,
         count(*) filter (where status = 'active' and failure_stage is not null)::int as failing
       from ${quoted}.tasks
       where not (status = 'active' and next_target < $1::timestamptz)
         and session_id <> all($2::text[]) and id <> all($3::text[])${scope}`;
  return { text, values };
}
