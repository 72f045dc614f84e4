// Fenced commits: a storage given a fence checks, inside each commit's transaction and before it
// writes, that this Host still holds the lease of every shard the batch touches, at the epoch it
// believes, unexpired by the database's clock. The lease rows are locked `FOR KEY SHARE` (in shard
// order, as the lease calls lock them) until the transaction ends. A takeover or a release locks
// the row `FOR UPDATE`, which that lock excludes, so no other Host can take a shard between the
// check and the write: a takeover skips the shard and takes it on a later try. A renewal only
// moves `expires_at` (`FOR NO KEY UPDATE`), which the lock lets through, so commits never hold
// up the renewals that keep the leases alive.
import { ScheduleError } from '../../domain/errors.ts';
import { reasonOf, type SqlClient } from './driver.ts';

/** What a fenced storage checks each commit against. */
export interface LeaseFence {
  /** The Host whose leases the commits write under. */
  readonly hostId: string;
  /** The epoch this Host holds each shard at (read at each commit; see `fenceEpochs`). */
  readonly epochs: () => ReadonlyMap<number, number>;
  /**
   * How long a commit's transaction may sit idle, holding its lease locks, before the server ends
   * it (`idle_in_transaction_session_timeout`), in ms; default 5000. A Host paused in the middle
   * of a commit (stopped, or stalled) must not keep the other Hosts from taking its shards once
   * its leases expire: keep it below the lease.
   */
  readonly idleTimeoutMs?: number;
}

/** {@link LeaseFence.idleTimeoutMs} when the fence names none. */
export const FENCE_IDLE_TIMEOUT_MS = 5_000;

/**
 * A commit refused because this Host no longer holds (or never held) the lease of a shard it
 * touches; nothing of the batch was written. Its code is `persistence_uncertain`, so it is never
 * read as success.
 */
export class LeaseLostError extends ScheduleError {
  constructor(
    readonly shard: number,
    /** The epoch the fence named (undefined when it named none for the shard). */
    readonly epoch: number | undefined,
    reason: string,
  ) {
    super('persistence_uncertain', `Refusing to commit: ${reason}; nothing of the batch was written.`);
    this.name = 'LeaseLostError';
  }
}

const quote = (value: unknown): string => JSON.stringify(String(value));

/** One lease row as a fence reads it. */
export interface FencedLease {
  readonly shard?: unknown;
  readonly owner?: unknown;
  /** The epoch, as text (a `bigint`). */
  readonly epoch?: unknown;
  /** Unexpired by the database's clock. */
  readonly live?: unknown;
}

/**
 * The epochs the fence names now.
 *
 * @throws ScheduleError `internal_error` when its `epochs()` throws; nothing was sent.
 */
export function fenceEpochsNow(fence: LeaseFence): ReadonlyMap<number, number> {
  try {
    return fence.epochs();
  } catch (error) {
    throw new ScheduleError(
      'internal_error',
      `Refusing to commit: the fence's epochs() failed (${reasonOf(error)}); nothing was written.`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Checks the lease rows read of `shards` (sorted) against the fence's `epochs`.
 *
 * @throws LeaseLostError naming the first shard whose lease this Host does not hold at its epoch.
 */
export function checkLeases(
  fence: LeaseFence,
  epochs: ReadonlyMap<number, number>,
  shards: readonly number[],
  leases: readonly FencedLease[],
): void {
  const rows = new Map(leases.map((r) => [Number(r.shard), r]));
  const host = quote(fence.hostId);
  for (const shard of shards) {
    const epoch = epochs.get(shard);
    const row = rows.get(shard);
    if (epoch === undefined) {
      throw new LeaseLostError(shard, undefined, `host ${host} holds no lease on shard ${shard} (its fence names no epoch for it)`);
    }
    const lost = `the lease of host ${host} on shard ${shard} at epoch ${epoch} was lost`;
    if (row === undefined) throw new LeaseLostError(shard, epoch, `${lost}: the schema has no lease row for the shard`);
    const owner = row.owner === null || row.owner === undefined ? undefined : String(row.owner);
    const current = Number(row.epoch);
    if (owner === undefined) throw new LeaseLostError(shard, epoch, `${lost}: the shard is free (released) at epoch ${current}`);
    if (owner !== fence.hostId) throw new LeaseLostError(shard, epoch, `${lost}: host ${quote(owner)} holds it now, at epoch ${current}`);
    if (current !== epoch) throw new LeaseLostError(shard, epoch, `${lost}: the shard is at epoch ${current} now`);
    if (row.live !== true) throw new LeaseLostError(shard, epoch, `${lost}: it expired (by the database's clock) and was not renewed`);
  }
}

/**
 * Locks the lease rows of `shards` (`FOR KEY SHARE`, in order) and checks each against the fence.
 * Call inside the commit's transaction, before any write. Answers the epochs it checked (the
 * rows written record them). (The one-statement commit, commitStatement.ts, checks the same in
 * the statement that writes.)
 *
 * @throws LeaseLostError naming the first shard whose lease this Host does not hold at its epoch.
 */
export async function checkFence(
  client: SqlClient,
  quotedSchema: string,
  fence: LeaseFence,
  shards: readonly number[],
  named?: ReadonlyMap<number, number>,
): Promise<ReadonlyMap<number, number>> {
  if (shards.length === 0) return new Map();
  const epochs = named ?? fenceEpochsNow(fence);
  const sorted = [...new Set(shards)].sort((a, b) => a - b);
  const result = await client.query(
    `select shard, owner, epoch::text as epoch, expires_at > now() as live
     from ${quotedSchema}.shard_leases where shard = any($1::smallint[]) order by shard for key share`,
    [sorted],
  );
  checkLeases(fence, epochs, sorted, result.rows);
  return epochs;
}
