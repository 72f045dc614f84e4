// A task row as the PostgreSQL storage writes it: the row's deterministic JSON encoding (the
// file storage's codec) and the columns queries need beside it (its failure status's stage,
// attempts and time among them). The row is kept as `json`, not
// `jsonb`: `json` keeps the text exactly, and accepts every string the codec accepts, where
// `jsonb` refuses `\u0000` and unpaired surrogates (which a prompt may hold). The Session id is
// also a `text` column, which holds neither; such a Session id is refused before anything is sent.

import { encodeRow } from '../../domain/codec/index.ts';
import { ScheduleError } from '../../domain/errors.ts';
import { shardOf } from '../../domain/tasks/sessionShard.ts';
import type { TaskRow } from '../../domain/tasks/types.ts';

/** The values of one `tasks` row. */
export interface StoredRowColumns {
  readonly id: string;
  readonly sessionId: string;
  readonly shard: number;
  readonly status: string;
  readonly nextTarget: string;
  readonly row: string;
  /** The failure status's stage, attempts and latest failure (all null without one): for queries, copied from the row. */
  readonly failureStage: string | null;
  readonly failureAttempts: number | null;
  readonly failedAt: string | null;
}

/** True when PostgreSQL `text` can hold the string unchanged (no NUL, no unpaired surrogate). */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isPostgresText = (value: string): boolean => !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);

/**
 * The columns of a valid row.
 *
 * @throws ScheduleError `internal_error` for a Session id PostgreSQL text cannot hold.
 */
export function encodeStoredRow(row: TaskRow): StoredRowColumns {
  if (!isPostgresText(row.sessionId)) {
    throw new ScheduleError(
      'internal_error',
      `Refusing to store task ${JSON.stringify(row.record.id)}: its Session id ${JSON.stringify(row.sessionId)} holds a NUL or an unpaired surrogate, which PostgreSQL text cannot store.`,
    );
  }
  return {
    id: row.record.id,
    sessionId: row.sessionId,
    shard: shardOf(row.sessionId),
    status: row.status,
    nextTarget: row.record.scheduledAt,
    row: encodeRow(row),
    failureStage: row.failure?.stage ?? null,
    failureAttempts: row.failure?.attempts ?? null,
    failedAt: row.failure?.lastAt ?? null,
  };
}
