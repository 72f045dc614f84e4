// One statement for the commits of many fenced storages of one process — a cluster Host's shards,
// each a storage of its own. Without it every shard's commit is a statement of its own, so twenty
// creates in flight over twenty shards cost twenty round trips. Here the commits made in one turn
// of the event loop go out together at its end, and those that find `maxInFlight` statements
// already on their way wait and go out together with the next: one statement (commitStatement.ts)
// whose fence checks the lease of every shard any of them touches, at the epoch each storage's
// fence names at the moment it is sent. A statement's answer ends a turn too: the commits it lets
// go and the ones its callers make on hearing it share the next statement, where sending the first
// of them at once would split the callers into ever smaller statements. It writes all of them or
// none. When it writes none — a lease no longer held, a put of an id another Session holds, any
// error the server answered with (so nothing of the statement was written) — each commit is
// answered `alone`, and its storage sends it by itself as before, so the failure lands on the
// commit it belongs to and the others are written. A statement whose outcome cannot be known (the
// connection was lost, the client gave up waiting) fails every commit in it, as it would fail one.

import { ScheduleError } from '../../domain/errors.ts';
import type { PreparedBatch } from '../domainState.ts';
import { commitStatement, fitsOneStatement, namedStatement } from './commitStatement.ts';
import { guardedPool, isConnectionFailure, type SqlClient, type SqlPool } from './driver.ts';
import { fenceEpochsNow, type LeaseFence } from './fence.ts';
import type { StoredRowColumns } from './rowColumns.ts';

/** One storage's commit handed to {@link SharedCommits}: a batch written by one statement, under its fence. */
export interface SharedCommit {
  readonly batch: PreparedBatch;
  readonly columns: readonly StoredRowColumns[];
  readonly fence: LeaseFence;
}

/** `committed`: written with the others of its statement; `alone`: not written, to be sent by itself. */
export type SharedOutcome = 'committed' | 'alone';

/** A shared statement that failed so that nothing can be said of what it wrote; `sent` is false when no connection was had. */
export class SharedCommitFailure extends Error {
  constructor(
    readonly sent: boolean,
    readonly error: unknown,
  ) {
    super(error instanceof Error ? error.message : String(error), { cause: error });
    this.name = 'SharedCommitFailure';
  }
}

/** Options of {@link sharedCommits}. */
export interface SharedCommitsOptions {
  readonly pool: SqlPool;
  /** The schema, quoted as an identifier. */
  readonly quotedSchema: string;
  /** Whether statements go out named (prepared once per connection); default true. */
  readonly preparedStatements?: boolean;
  /** Statements on their way at once before commits queue (default 2). */
  readonly maxInFlight?: number;
  /** The most commits in one statement (default 200). */
  readonly maxCommits?: number;
}

interface Waiter {
  readonly commit: SharedCommit;
  readonly resolve: (outcome: SharedOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/** A server's answer to a statement it ran and refused: it rolled back, nothing was written. */
const refusedByServer = (error: unknown): boolean => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !isConnectionFailure(error);
};

export class SharedCommits {
  private readonly pool: SqlPool;
  private readonly maxInFlight: number;
  private readonly maxCommits: number;
  private queue: Waiter[] = [];
  private inFlight = 0;
  /** Whether a pump waits for the end of this turn. */
  private pumping = false;

  constructor(private readonly options: SharedCommitsOptions) {
    this.pool = guardedPool(options.pool);
    this.maxInFlight = options.maxInFlight ?? 2;
    this.maxCommits = options.maxCommits ?? 200;
    for (const [name, value] of [
      ['maxInFlight', this.maxInFlight],
      ['maxCommits', this.maxCommits],
    ] as const) {
      if (!Number.isSafeInteger(value) || value < 1) {
        throw new ScheduleError('internal_error', `Shared commits' ${name} is a whole number of at least 1, not ${String(value)}.`);
      }
    }
  }

  /**
   * Sends `commit` with the others queued beside it. Resolves `committed` once written, `alone`
   * when not written and to be sent by itself (see the file comment).
   *
   * @throws SharedCommitFailure when the statement's outcome cannot be known; a ScheduleError when
   *   the commit's fence could not name its epochs.
   */
  commit(commit: SharedCommit): Promise<SharedOutcome> {
    // A batch recording the time-zone data version is rare and sets one row every storage shares.
    if (commit.batch.tzdata !== undefined || !fitsOneStatement(commit.batch)) return Promise.resolve('alone');
    return new Promise<SharedOutcome>((resolve, reject) => {
      this.queue.push({ commit, resolve, reject });
      this.pumpAtTurnEnd();
    });
  }

  private pumpAtTurnEnd(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxCommits);
      this.inFlight++;
      void this.send(group).finally(() => {
        this.inFlight--;
        this.pumpAtTurnEnd();
      });
    }
  }

  private async send(group: readonly Waiter[]): Promise<void> {
    let client: Awaited<ReturnType<SqlPool['connect']>>;
    try {
      client = await this.pool.connect();
    } catch (error) {
      for (const waiter of group) waiter.reject(new SharedCommitFailure(false, error));
      return;
    }
    let broken: Error | undefined;
    try {
      broken = await this.write(client, group);
    } catch (error) {
      // Nothing was sent (building the statement failed): each commit not yet answered fails with it.
      for (const waiter of group) waiter.reject(error);
    } finally {
      client.release(broken);
    }
  }

  /** Writes `group` on `client`, settling each of its commits; answers the failure that broke the connection, if one did. */
  private async write(client: SqlClient, group: readonly Waiter[]): Promise<Error | undefined> {
    // Read once the connection is there, right before the statement that checks them.
    const epochs = new Map<number, number>();
    const sending: Waiter[] = [];
    for (const waiter of group) {
      let named: ReadonlyMap<number, number>;
      try {
        named = fenceEpochsNow(waiter.commit.fence);
      } catch (error) {
        waiter.reject(error);
        continue;
      }
      const clash = [...named].some(([shard, epoch]) => epochs.has(shard) && epochs.get(shard) !== epoch);
      if (named.size === 0 || clash || waiter.commit.fence.hostId !== group[0]?.commit.fence.hostId) {
        waiter.resolve('alone');
        continue;
      }
      for (const [shard, epoch] of named) epochs.set(shard, epoch);
      sending.push(waiter);
    }
    const alone = (): undefined => {
      for (const waiter of sending) waiter.resolve('alone');
      return undefined;
    };
    const first = sending[0];
    if (first === undefined) return undefined;
    const batch: PreparedBatch = {
      puts: sending.flatMap((w) => w.commit.batch.puts),
      deletes: sending.flatMap((w) => w.commit.batch.deletes),
      calls: sending.flatMap((w) => w.commit.batch.calls ?? []),
      forgetCalls: sending.flatMap((w) => w.commit.batch.forgetCalls ?? []),
    };
    if (!fitsOneStatement(batch)) return alone();
    const statement = commitStatement(
      this.options.quotedSchema,
      batch,
      sending.flatMap((w) => w.commit.columns),
      { kind: 'fence', fence: { hostId: first.commit.fence.hostId, epochs: () => epochs }, epochs },
    );
    try {
      const named = this.options.preparedStatements === false ? undefined : namedStatement(statement);
      const result = named === undefined ? await client.query(statement.text, statement.values) : await client.query(named);
      if (result.rows[0]?.ok !== true) return alone();
      for (const waiter of sending) waiter.resolve('committed');
      return undefined;
    } catch (error) {
      if (refusedByServer(error)) return alone();
      for (const waiter of sending) waiter.reject(new SharedCommitFailure(true, error));
      return isConnectionFailure(error) ? (error instanceof Error ? error : new Error(String(error))) : undefined;
    }
  }
}

/**
 * Commits of the fenced storages of one process sent together: pass the same instance as
 * `sharedCommits` to each storage (a cluster Host passes one to every shard's storage).
 *
 * @throws ScheduleError `internal_error` for a bad `maxInFlight` or `maxCommits`.
 */
export const sharedCommits = (options: SharedCommitsOptions): SharedCommits => new SharedCommits(options);
