// The PostgreSQL storage: the storage port on a PostgreSQL schema. One row per task — the task
// row as the file storage's codec encodes it (a `json` value) beside the columns queries need:
// Session id, shard (the Session group the supervisor puts the Session in), status, next target
// and a version that grows with every write of the row. Receipts stay inside the row. Ids come
// from the schema's task-number sequence. `open` migrates the schema (under an advisory lock),
// then decodes every row strictly; each `commit` is one transaction, issued in call order —
// almost always one statement, one round trip (commitStatement.ts); a commit whose outcome the
// database did not confirm rejects with `persistence_uncertain`. While the database is
// unreachable, commits are refused at once for a growing pause (backoff) and then tried on a
// fresh connection. With a fence, each commit checks (and locks) the shard leases of the shards
// it touches before it writes, and writes nothing when one is no longer this Host's. Without a
// fence the storage is the schema's only writer: `open` takes the schema's owner row (see
// storageOwner.ts) or is refused with `storage_locked`, and each commit renews it in its own
// transaction. A task number is taken in one statement too. Scoped to shards, `open` reads only
// their rows.
import { decodeRememberedCall } from '../../domain/codec/calls.ts';
import { decodeTzdata, nextTaskNumberAfter } from '../../domain/codec/index.ts';
import { corrupt } from '../../domain/codec/strict.ts';
import { isScheduleError, ScheduleError } from '../../domain/errors.ts';
import type { RememberedCall } from '../../domain/tasks/rememberedCalls.ts';
import { SHARDS, shardOf } from '../../domain/tasks/sessionShard.ts';
import type { TaskRow } from '../../domain/tasks/types.ts';
import { formatInstant } from '../../domain/time/instant.ts';
import type { CommitBatch, HeldRows, OpenRequest, ScheduleStorage, StoredDomain, StoredRest, UnreadCounts } from '../../ports.ts';
import { type PreparedBatch, prepareBatch } from '../domainState.ts';
import { type CommitGuard, commitStatement, fitsOneStatement, namedStatement, TAKEN_ID_STATE, takenId } from './commitStatement.ts';
import { isConnectionFailure, reasonOf, type SqlClient, type SqlPool, watchPoolErrors } from './driver.ts';
import { checkFence, checkLeases, FENCE_IDLE_TIMEOUT_MS, fenceEpochsNow, type LeaseFence } from './fence.ts';
import { migrate, quoteSchema } from './migrations.ts';
import { createPgPool } from './pgPool.ts';
import { encodeStoredRow, type StoredRowColumns } from './rowColumns.ts';
import { checkHostId, MAX_LEASE_MS } from './shardLeases.ts';
import { SharedCommitFailure, type SharedCommits, type SharedOutcome } from './sharedCommits.ts';
import { DEFAULT_OWNER_LEASE_MS, StorageOwner } from './storageOwner.ts';
import { type RowFilter, readRows, unreadCountsQuery } from './storedRows.ts';
import type { TaskNumberBlocks } from './taskNumberBlocks.ts';

/** The schema used when none is given. */
export const DEFAULT_SCHEMA = 'agent_schedule';

/** The `application_name` of the storage's own connections (so an operator can find them). */
export const DEFAULT_APPLICATION_NAME = 'agent-schedule';

/** Options of {@link postgresStorage}. */
export interface PostgresStorageOptions {
  /** A `postgres://` URL; the storage then makes (and ends on close) its own `pg` pool. */
  readonly connectionString?: string;
  /** A pool to use instead (a `pg.Pool` or anything with the same `connect()`); never ended by the storage. */
  readonly pool?: SqlPool;
  /** The schema holding the tables (created by the migrations); default `agent_schedule`. */
  readonly schema?: string;
  /** `application_name` of the own pool's connections; default `agent-schedule`. */
  readonly applicationName?: string;
  /** Pause after a lost connection before the next attempt: `initialMs` (default 100), doubling up to `maxMs` (default 5000). */
  readonly reconnect?: { readonly initialMs?: number; readonly maxMs?: number };
  /** Client-side limit on one statement of the own pool, in ms (default 30000); past it the outcome is uncertain. */
  readonly queryTimeoutMs?: number;
  /**
   * Whether commits are sent as named prepared statements (default true): each connection has the
   * server parse and plan a commit's statement once. Set false behind a pooler that cannot keep
   * prepared statements between transactions (PgBouncer in transaction mode before 1.21).
   */
  readonly preparedStatements?: boolean;
  /**
   * Fenced commits: each commit checks, in its transaction and before writing, that `hostId`
   * holds the lease of every shard the batch touches (its puts' Sessions, its deletes' rows) at
   * the epoch `epochs()` names, unexpired; otherwise nothing is written and the commit rejects
   * with a `LeaseLostError` (code `persistence_uncertain`). Without it commits are not fenced.
   */
  readonly fence?: LeaseFence;
  /**
   * Shard-scoped open: `open` reads only the rows of these shards (0–255, see `shardOf`), given
   * as a list or as a function asked at each open (say, the shards a keeper holds). Commits are
   * not limited by it (a fence checks their shards). Without it `open` reads every row.
   */
  readonly shards?: readonly number[] | (() => readonly number[]);
  /**
   * Whether an open asked for the rows due soon (as the service asks while passivation is on)
   * reads only those and leaves the rest to be read on demand (default true). False reads every
   * row at open.
   */
  readonly readOnDemand?: boolean;
  /**
   * Without a fence: how long this storage's claim on the schema lasts without renewal, in ms
   * (default 15000; renewed by every commit and every third of it). A Host that dies on another
   * machine keeps the schema from a new opener this long; one on the same machine does not.
   */
  readonly ownerLeaseMs?: number;
  /**
   * Where `allocateTaskNumbers` draws from: blocks shared by several storages of one process
   * (a cluster Host's shards), each block taken from the sequence through the storage that found
   * it empty. Without it, every allocation takes its numbers from the sequence.
   */
  readonly taskNumbers?: TaskNumberBlocks;
  /**
   * With a fence: where one-statement commits go out together with those of the other fenced
   * storages of the process given the same instance (a cluster Host's shards), one statement for
   * the commits of one turn or queued while others are on their way (sharedCommits.ts). Without
   * it each commit is a statement of its own.
   */
  readonly sharedCommits?: SharedCommits;
}

/**
 * The shards a scoped open reads, checked and sorted.
 *
 * @throws ScheduleError `internal_error` for a list that is not of whole numbers 0–255.
 */
const checkShards = (shards: unknown): number[] => {
  if (!Array.isArray(shards) || !shards.every((s) => Number.isInteger(s) && s >= 0 && s < SHARDS)) {
    throw new ScheduleError(
      'internal_error',
      `A PostgreSQL storage's shards are a list of whole numbers 0-255, not ${JSON.stringify(shards) ?? String(shards)}.`,
    );
  }
  return [...new Set(shards as number[])].sort((a, b) => a - b);
};

type Phase = 'closed' | 'opening' | 'open' | 'closing';

/** What a commit that never reached a connection says. */
const UNSENT = 'The schedule change could not be sent: the database cannot be reached';

const uncertain = (what: string, error: unknown): ScheduleError =>
  new ScheduleError('persistence_uncertain', `${what} (${reasonOf(error)}); it may or may not have been stored.`, { cause: error });

/** The PostgreSQL storage; see {@link postgresStorage}. */
export class PostgresStorage implements ScheduleStorage {
  private phase: Phase = 'closed';
  private pool: SqlPool | undefined;
  private opening: Promise<unknown> = Promise.resolve();
  private tail: Promise<void> = Promise.resolve();
  private failures = 0;
  private retryAt = 0;
  private lastFailure: unknown;
  /**
   * A number the task-number sequence is known to have reached (it only grows): read at open and
   * at each check, moved by each allocation. A commit whose ids lie below it reads nothing.
   */
  private sequenceFloor = 1;
  /** What `prime` read, and the digest of the shards' rows it was read after; the next open answers it while the digest holds. */
  private primed: { readonly digest: string; readonly domain: StoredDomain } | undefined;
  /** The claim on the schema of a storage without a fence (its only writer). */
  private readonly owner: StorageOwner | undefined;
  private renewTimer: ReturnType<typeof setTimeout> | undefined;
  private renewing: Promise<void> = Promise.resolve();
  readonly schema: string;
  private readonly quoted: string;

  constructor(private readonly options: PostgresStorageOptions) {
    if (options.pool === undefined && options.connectionString === undefined) {
      throw new ScheduleError('internal_error', 'postgresStorage needs a connectionString or a pool.');
    }
    this.schema = options.schema ?? DEFAULT_SCHEMA;
    this.quoted = quoteSchema(this.schema);
    if (options.fence !== undefined) {
      checkHostId(options.fence.hostId);
      if (typeof options.fence.epochs !== 'function') throw new ScheduleError('internal_error', 'A fence needs an epochs() function.');
      const idle = options.fence.idleTimeoutMs;
      if (idle !== undefined && !(Number.isInteger(idle) && idle >= 1 && idle <= 86_400_000)) {
        throw new ScheduleError(
          'internal_error',
          `A fence's idleTimeoutMs is a whole number of ms from 1 to 86400000, not ${String(idle)}.`,
        );
      }
    }
    if (options.shards !== undefined && typeof options.shards !== 'function') checkShards(options.shards);
    const leaseMs = options.ownerLeaseMs ?? DEFAULT_OWNER_LEASE_MS;
    if (!(Number.isSafeInteger(leaseMs) && leaseMs >= 3 && leaseMs <= MAX_LEASE_MS)) {
      throw new ScheduleError('internal_error', `ownerLeaseMs is a whole number of ms from 3 to ${MAX_LEASE_MS}, not ${String(leaseMs)}.`);
    }
    // The cluster's storages share the schema by shard leases and fence every commit instead.
    this.owner = options.fence === undefined ? new StorageOwner(this.schema, this.quoted, leaseMs) : undefined;
  }

  /**
   * Migrates the schema (once, under an advisory lock) and decodes every row strictly.
   *
   * @throws ScheduleError `corrupt_schedule_log` naming the row for a row that does not decode (or
   *   whose columns disagree with it) and for a schema newer than this code; `persistence_uncertain`
   *   when the database cannot be reached (nothing was read or changed); `internal_error` when open;
   *   `SchemaLockedError` (`storage_locked`, naming the holder) when another storage without a
   *   fence writes the schema.
   */
  async open(request?: OpenRequest): Promise<StoredDomain> {
    if (this.phase !== 'closed')
      throw new ScheduleError('internal_error', `The PostgreSQL schedule storage (${this.schema}) is already open.`);
    this.phase = 'opening';
    const loading = this.load(request);
    this.opening = loading.catch(() => undefined);
    try {
      const domain = await loading;
      this.phase = 'open';
      this.scheduleRenewal();
      return domain;
    } catch (error) {
      await this.giveOwner();
      await this.endPool();
      this.phase = 'closed';
      throw error;
    }
  }

  /**
   * Reads what the next `open(request)` answers ahead of it, without taking anything: a cluster
   * Host reads a shard offered to it while its owner still serves it. That open then checks, in
   * one round trip, that a digest of the shards' rows (every task's id, version and place, the
   * remembered calls, the time-zone data version) is the one read before the rows; when it is, it
   * answers what was read (its `rest` reads on from where this read stopped), else it reads again.
   * Only a fenced storage of given shards reads ahead: once the lease is its own nobody else
   * writes them, so an unchanged digest means unchanged rows.
   *
   * @throws ScheduleError `internal_error` when open or not fenced to given shards; as `open` does for the rest.
   */
  async prime(request?: OpenRequest): Promise<void> {
    if (this.phase !== 'closed')
      throw new ScheduleError('internal_error', `The PostgreSQL schedule storage (${this.schema}) is already open.`);
    if (this.options.fence === undefined || this.options.shards === undefined) {
      throw new ScheduleError('internal_error', 'Only a fenced PostgreSQL storage of given shards reads ahead of its open.');
    }
    this.primed = await this.opened(async (client) => {
      const digest = await this.digest(client);
      return { digest, domain: await this.readDomain(client, request) };
    });
  }

  private async load(request: OpenRequest | undefined): Promise<StoredDomain> {
    return this.opened(async (client) => {
      await this.owner?.take(client);
      const primed = this.primed;
      this.primed = undefined;
      if (primed !== undefined && (await this.digest(client)) === primed.digest) return primed.domain;
      return await this.readDomain(client, request);
    });
  }

  /** The digest of the stored rows of this storage's shards that an open reads (see `prime`). */
  private async digest(client: SqlClient): Promise<string> {
    const q = this.quoted;
    const shards = this.scopedShards();
    const scope = shards === undefined ? '' : ' where shard = any($1::smallint[])';
    const result = await client.query(
      `select md5(
         coalesce((select string_agg(json_build_array(id, version, position)::text, ',' order by id) from ${q}.tasks${scope}), '')
         || '|' || coalesce((select string_agg(json_build_array(session_id, call_id, position)::text, ',' order by position)
                             from ${q}.remembered_calls${scope}), '')
         || '|' || coalesce((select value from ${q}.domain_meta where key = 'tzdata'), '')) as digest`,
      shards === undefined ? [] : [shards],
    );
    return String(result.rows[0]?.digest);
  }

  private scopedShards(): number[] | undefined {
    const scope = this.options.shards;
    return scope === undefined ? undefined : checkShards(typeof scope === 'function' ? scope() : scope);
  }

  /** Runs `work` on a connection of a migrated schema, as an open does (the pool made first when given a connection string). */
  private async opened<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    if (this.options.pool !== undefined) watchPoolErrors(this.options.pool);
    this.pool =
      this.options.pool ??
      (await createPgPool({
        connectionString: this.options.connectionString ?? '',
        applicationName: this.options.applicationName ?? DEFAULT_APPLICATION_NAME,
        queryTimeoutMs: this.options.queryTimeoutMs ?? 30_000,
      }));
    const client = await this.connect('The schedule storage cannot reach its database; nothing was read or changed');
    let broken: Error | undefined;
    try {
      await migrate(client, this.schema);
      return await work(client);
    } catch (error) {
      if (isScheduleError(error)) throw error;
      if (isConnectionFailure(error)) {
        broken = error as Error;
        throw uncertain('The schedule storage lost its database connection while opening; nothing was changed', error);
      }
      throw new ScheduleError(
        'internal_error',
        `The schedule storage could not open its PostgreSQL schema ${this.schema}: ${reasonOf(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      client.release(broken);
    }
  }

  private async readDomain(client: SqlClient, request: OpenRequest | undefined): Promise<StoredDomain> {
    const shards = this.scopedShards();
    const until = this.options.readOnDemand === false ? undefined : request?.dueBefore;
    const tasks = await readRows(
      client,
      this.schema,
      this.quoted,
      shards,
      until === undefined ? { kind: 'all' } : { kind: 'dueBefore', until },
    );
    const calls = await this.readCalls(client, shards);
    // The sequence and the time-zone data version in one round trip (`value` is never null: a
    // null is a missing row).
    const counted = await client.query(
      `select last_value::text as last_value, is_called,
              (select value from ${this.quoted}.domain_meta where key = 'tzdata') as tzdata
         from ${this.quoted}.task_number`,
    );
    const counter = nextOfSequence(counted.rows[0]);
    this.sequenceFloor = Math.max(this.sequenceFloor, counter);
    const stored = counted.rows[0]?.tzdata;
    const tzdata = decodeTzdata(stored === null || stored === undefined ? {} : { tzdata: stored }, `${this.schema}.domain_meta`);
    return {
      tasks,
      // Rows left unread hold ids the sequence has handed out, so the sequence stays ahead of them.
      nextTaskNumber: nextTaskNumberAfter(
        tasks.map((t) => t.record.id),
        counter,
      ),
      ...tzdata,
      ...(calls.length === 0 ? {} : { calls }),
      ...(until === undefined ? {} : { rest: this.restOf(shards, until) }),
    };
  }

  /** The rows an open by due time left in the database, read on demand within the same shards. */
  private restOf(shards: readonly number[] | undefined, readUntil: number): StoredRest {
    const read = (filter: RowFilter): Promise<TaskRow[]> => this.readStored(shards, filter);
    return {
      readUntil,
      sessions: (sessionIds) => read({ kind: 'sessions', sessionIds }),
      due: (from, until) => read({ kind: 'dueBetween', from, until }),
      all: () => read({ kind: 'all' }),
      unreadCounts: (held) => this.countUnread(shards, held),
    };
  }

  /**
   * Counts the stored rows outside `held` while open.
   *
   * @throws ScheduleError `persistence_uncertain` when the database could not answer.
   */
  private countUnread(shards: readonly number[] | undefined, held: HeldRows): Promise<UnreadCounts> {
    return this.reading('counted', async (client) => {
      const { text, values } = unreadCountsQuery(this.quoted, shards, held);
      const row = (await client.query(text, values)).rows[0] ?? {};
      return {
        total: Number(row.total ?? 0),
        ended: Number(row.ended ?? 0),
        paused: Number(row.paused ?? 0),
        failing: Number(row.failing ?? 0),
      };
    });
  }

  /**
   * Reads stored rows while open.
   *
   * @throws ScheduleError `persistence_uncertain` when the database could not answer; `corrupt_schedule_log` for a bad row.
   */
  private readStored(shards: readonly number[] | undefined, filter: RowFilter): Promise<TaskRow[]> {
    return this.reading('read', (client) => readRows(client, this.schema, this.quoted, shards, filter));
  }

  /**
   * Runs a read of the stored tasks on a client of the pool while open: a ScheduleError it throws
   * (a corrupt row) is passed on, any other failure becomes `persistence_uncertain`, and a
   * connection that failed is discarded.
   */
  private async reading<T>(verb: 'read' | 'counted', work: (client: SqlClient) => Promise<T>): Promise<T> {
    if (this.phase !== 'open') throw new ScheduleError('internal_error', `The PostgreSQL schedule storage (${this.schema}) is not open.`);
    const client = await this.connect(`The stored tasks could not be ${verb}: the database cannot be reached`);
    let broken: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (isScheduleError(error)) throw error;
      if (isConnectionFailure(error)) {
        broken = error instanceof Error ? error : new Error(String(error));
        this.noteConnectionFailure(error);
      }
      throw new ScheduleError('persistence_uncertain', `The stored tasks could not be ${verb} (${reasonOf(error)}).`, { cause: error });
    } finally {
      client.release(broken);
    }
  }

  /** The remembered calls of the shards this storage opens (all without a scope), oldest first. */
  private async readCalls(client: SqlClient, shards: readonly number[] | undefined): Promise<RememberedCall[]> {
    const source = `PostgreSQL table ${this.schema}.remembered_calls`;
    const columns = `select session_id, call_id, operation, arguments, answer::text as answer,
         floor(extract(epoch from called_at) * 1000)::bigint::text as called_at_ms
       from ${this.quoted}.remembered_calls`;
    const result =
      shards === undefined
        ? await client.query(`${columns} order by called_at, position`)
        : await client.query(`${columns} where shard = any($1::smallint[]) order by called_at, position`, [shards]);
    return result.rows.map((stored) => {
      const where = `${source}: call ${JSON.stringify(String(stored.call_id))} of Session ${JSON.stringify(String(stored.session_id))}`;
      let answer: unknown;
      try {
        answer = JSON.parse(String(stored.answer));
      } catch (error) {
        corrupt(where, 'answer', `is not JSON (${reasonOf(error)})`);
      }
      const value = {
        sessionId: stored.session_id,
        callId: stored.call_id,
        operation: stored.operation,
        arguments: stored.arguments,
        answer,
        calledAt: formatInstant(Number(stored.called_at_ms)),
      };
      return decodeRememberedCall(value, where, '');
    });
  }

  /**
   * Writes one batch in one transaction, after every earlier commit of this storage.
   *
   * @throws ScheduleError `internal_error` for an invalid batch (nothing is written), a put of an
   *   id that another Session's task holds, or a closed storage; `persistence_uncertain` when the
   *   database failed or did not confirm the transaction, or is unreachable (see `reconnect`);
   *   `LeaseLostError` (`persistence_uncertain`, nothing written) when fenced and a lease is lost.
   */
  commit(batch: CommitBatch): Promise<void> {
    if (this.phase !== 'open') {
      return Promise.reject(new ScheduleError('internal_error', `The PostgreSQL schedule storage (${this.schema}) is not open.`));
    }
    let prepared: PreparedBatch;
    let columns: StoredRowColumns[];
    try {
      prepared = prepareBatch(batch);
      // Encoded before the commit queues: a row the columns refuse fails the commit, nothing sent.
      columns = prepared.puts.map(encodeStoredRow);
    } catch (error) {
      return Promise.reject(error);
    }
    const result = this.tail.then(() => this.write(prepared, columns));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Writes `batch`, whose puts encode to `columns`. */
  private async write(batch: PreparedBatch, columns: readonly StoredRowColumns[]): Promise<void> {
    if (Date.now() < this.retryAt) {
      throw new ScheduleError(
        'persistence_uncertain',
        `The schedule database is unreachable (${reasonOf(this.lastFailure)}); the change was not sent, and the next attempt to reconnect is in ${this.retryAt - Date.now()} ms.`,
        { cause: this.lastFailure },
      );
    }
    const fence = this.options.fence;
    const shared = this.options.sharedCommits;
    if (shared !== undefined && fence !== undefined && this.oneStatement(batch)) {
      let outcome: SharedOutcome;
      try {
        outcome = await shared.commit({ batch, columns, fence });
      } catch (error) {
        if (!(error instanceof SharedCommitFailure)) throw error;
        throw this.failed(error.error, error.sent ? undefined : UNSENT);
      }
      if (outcome === 'committed') {
        this.failures = 0;
        this.retryAt = 0;
        return;
      }
    }
    const client = await this.connect(UNSENT);
    let broken: Error | undefined;
    try {
      // Read once the connection is there, right before the statements that check them.
      const epochs = fence === undefined ? undefined : fenceEpochsNow(fence);
      if (this.oneStatement(batch)) {
        await this.writeOne(client, batch, columns, epochs);
        this.failures = 0;
        this.retryAt = 0;
        return;
      }
      // A fenced commit's locks outlive a paused Host only briefly (see LeaseFence.idleTimeoutMs).
      await client.query(
        fence === undefined
          ? 'begin'
          : `begin; set local idle_in_transaction_session_timeout = ${fence.idleTimeoutMs ?? FENCE_IDLE_TIMEOUT_MS}`,
      );
      try {
        await this.writeStatements(client, batch, columns, epochs);
      } catch (error) {
        // A connection that cannot roll back is not given back to the pool as it is.
        if (!isConnectionFailure(error)) await client.query('rollback').catch((cause: unknown) => (broken = new Error(reasonOf(cause))));
        throw error;
      }
      await client.query('commit');
      this.failures = 0;
      this.retryAt = 0;
    } catch (error) {
      if (!isScheduleError(error) && isConnectionFailure(error)) broken = error instanceof Error ? error : new Error(String(error));
      throw this.failed(error);
    } finally {
      client.release(broken);
    }
  }

  /**
   * What a commit whose statement failed with `error` rejects with: a ScheduleError as it is, else
   * `persistence_uncertain` saying whether the connection was lost (noted for the reconnect pause)
   * or the database refused it; `unsent` names a commit that never reached a connection.
   */
  private failed(error: unknown, unsent?: string): ScheduleError {
    if (isScheduleError(error)) return error;
    if (unsent !== undefined) {
      this.noteConnectionFailure(error);
      return new ScheduleError('persistence_uncertain', `${unsent} (${reasonOf(error)}).`, { cause: error });
    }
    if (isConnectionFailure(error)) {
      this.noteConnectionFailure(error);
      return uncertain('The schedule change could not be confirmed: the database connection was lost', error);
    }
    return uncertain('The schedule change could not be made durable: the database refused it', error);
  }

  /**
   * True when the batch is written by one statement (the guard and every write together): all but
   * a batch that moves the task-number sequence, or forgets and remembers the same call.
   */
  private oneStatement(batch: PreparedBatch): boolean {
    return (batch.nextTaskNumber === undefined || batch.nextTaskNumber <= this.sequenceFloor) && fitsOneStatement(batch);
  }

  /** Writes `batch` in one statement, its own transaction (see commitStatement.ts). */
  private async writeOne(
    client: SqlClient,
    batch: PreparedBatch,
    columns: readonly StoredRowColumns[],
    epochs: ReadonlyMap<number, number> | undefined,
  ): Promise<void> {
    const fence = this.options.fence;
    const guard: CommitGuard =
      fence !== undefined && epochs !== undefined
        ? { kind: 'fence', fence, epochs }
        : this.owner !== undefined
          ? { kind: 'owner', token: this.owner.token, leaseMs: this.owner.leaseMs }
          : { kind: 'none' };
    const statement = commitStatement(this.quoted, batch, columns, guard);
    let result: Awaited<ReturnType<SqlClient['query']>>;
    try {
      const named = this.options.preparedStatements === false ? undefined : namedStatement(statement);
      result = named === undefined ? await client.query(statement.text, statement.values) : await client.query(named);
    } catch (error) {
      if ((error as { code?: unknown }).code === TAKEN_ID_STATE) {
        const taken = await takenId(client, this.quoted, columns);
        throw new ScheduleError(
          'internal_error',
          `Refusing to commit: task id ${JSON.stringify(taken)} is already held by another Session's task (ids are unique across Hosts); nothing was written.`,
        );
      }
      throw error;
    }
    const verdict = result.rows[0];
    if (verdict?.ok === true) return;
    if (guard.kind === 'fence') {
      const touched = String(verdict?.touched ?? '{}')
        .replace(/[{}]/g, '')
        .split(',')
        .filter((s) => s !== '')
        .map(Number);
      const leases = JSON.parse(String(verdict?.leases ?? 'null')) ?? [];
      checkLeases(guard.fence, guard.epochs, touched, leases);
    }
    // The owner row names another storage (check throws saying which), or the guard failed without a reason it can name.
    await this.owner?.check(client);
    throw new ScheduleError(
      'persistence_uncertain',
      'Refusing to commit: the commit guard did not hold; nothing of the batch was written.',
    );
  }

  private async writeStatements(
    client: SqlClient,
    batch: PreparedBatch,
    columns: readonly StoredRowColumns[],
    epochs: ReadonlyMap<number, number> | undefined,
  ): Promise<void> {
    const q = this.quoted;
    // A fenced commit records, in each row it writes, the Host and the lease epoch it wrote under.
    let writer: { readonly hostId: string; readonly epochs: ReadonlyMap<number, number> } | undefined;
    if (this.options.fence === undefined) {
      // Refused, with nothing written, when another storage took the schema while this one's lease had run out.
      await this.owner?.check(client);
      if (batch.deletes.length > 0) await client.query(`delete from ${q}.tasks where id = any($1::text[])`, [batch.deletes]);
    } else {
      const shards = await this.touchedShards(client, batch, columns);
      writer = { hostId: this.options.fence.hostId, epochs: await checkFence(client, q, this.options.fence, shards, epochs) };
      // Only rows of the checked shards are deleted (a row stored since the lookup is not this batch's to remove).
      if (batch.deletes.length > 0) {
        await client.query(`delete from ${q}.tasks where id = any($1::text[]) and shard = any($2::smallint[])`, [batch.deletes, shards]);
      }
    }
    if (columns.length > 0) {
      const result = await client.query(
        `insert into ${q}.tasks as t (id, session_id, shard, status, next_target, row, committed_by, committed_epoch,
           failure_stage, failure_attempts, failed_at)
         select id, session_id, shard, status, next_target, row, $7, committed_epoch, failure_stage, failure_attempts, failed_at
         from unnest($1::text[], $2::text[], $3::smallint[], $4::text[], $5::timestamptz[], $6::json[], $8::bigint[],
             $9::text[], $10::integer[], $11::timestamptz[])
           with ordinality as u(id, session_id, shard, status, next_target, row, committed_epoch, failure_stage, failure_attempts, failed_at, ord)
         order by ord
         on conflict (id) do update set shard = excluded.shard, status = excluded.status, next_target = excluded.next_target,
           row = excluded.row, version = t.version + 1, committed_by = excluded.committed_by, committed_epoch = excluded.committed_epoch,
           failure_stage = excluded.failure_stage, failure_attempts = excluded.failure_attempts, failed_at = excluded.failed_at
         where t.session_id = excluded.session_id
         returning t.id`,
        [
          columns.map((c) => c.id),
          columns.map((c) => c.sessionId),
          columns.map((c) => c.shard),
          columns.map((c) => c.status),
          columns.map((c) => c.nextTarget),
          columns.map((c) => c.row),
          writer?.hostId ?? null,
          columns.map((c) => writer?.epochs.get(c.shard) ?? null),
          columns.map((c) => c.failureStage),
          columns.map((c) => c.failureAttempts),
          columns.map((c) => c.failedAt),
        ],
      );
      if ((result.rowCount ?? result.rows.length) !== columns.length) {
        const written = new Set(result.rows.map((r) => String(r.id)));
        const taken = columns.find((c) => !written.has(c.id))?.id ?? '?';
        throw new ScheduleError(
          'internal_error',
          `Refusing to commit: task id ${JSON.stringify(taken)} is already held by another Session's task (ids are unique across Hosts); nothing was written.`,
        );
      }
    }
    await this.writeCalls(client, batch);
    if (batch.tzdata !== undefined) {
      await client.query(
        `insert into ${q}.domain_meta (key, value) values ('tzdata', $1) on conflict (key) do update set value = excluded.value`,
        [batch.tzdata],
      );
    }
    if (batch.nextTaskNumber !== undefined) await this.coverTaskNumbers(client, batch.nextTaskNumber);
  }

  /**
   * Moves the task-number sequence past `next - 1` when it is behind (a put of an id the sequence
   * did not hand out). The sequence only grows, so one already past needs nothing and takes no
   * lock: a commit of allocated ids — every commit of a Host that creates through the sequence —
   * never waits for another Host's commit or allocation, and one below {@link sequenceFloor} does
   * not even read the sequence. Moving it takes the counter lock exclusively, against the
   * allocations that hold it shared.
   */
  private async coverTaskNumbers(client: SqlClient, next: number): Promise<void> {
    if (next <= this.sequenceFloor) return;
    const q = this.quoted;
    const reached = await sequenceNext(client, q);
    this.sequenceFloor = Math.max(this.sequenceFloor, reached);
    if (reached >= next) return;
    await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [counterLockKey(this.schema)]);
    await client.query(
      `select setval('${q}.task_number', greatest($1::bigint, case when is_called then last_value + 1 else last_value end), false)
       from ${q}.task_number`,
      [next],
    );
    // `setval` is not undone by a rollback: the sequence has reached `next` either way.
    this.sequenceFloor = Math.max(this.sequenceFloor, next);
  }

  /**
   * Forgets and remembers a batch's calls in its transaction. A call already stored (the batch of
   * an uncertain write sent again) is kept as it was.
   */
  private async writeCalls(client: SqlClient, batch: PreparedBatch): Promise<void> {
    const q = this.quoted;
    const forget = batch.forgetCalls ?? [];
    if (forget.length > 0) {
      await client.query(
        `delete from ${q}.remembered_calls c using unnest($1::text[], $2::text[]) as f(session_id, call_id)
         where c.session_id = f.session_id and c.call_id = f.call_id`,
        [forget.map((f) => f.sessionId), forget.map((f) => f.callId)],
      );
    }
    const calls = batch.calls ?? [];
    if (calls.length === 0) return;
    await client.query(
      `insert into ${q}.remembered_calls (session_id, call_id, shard, operation, arguments, answer, called_at)
       select * from unnest($1::text[], $2::text[], $3::smallint[], $4::text[], $5::text[], $6::json[], $7::timestamptz[])
       on conflict (session_id, call_id) do nothing`,
      [
        calls.map((c) => c.sessionId),
        calls.map((c) => c.callId),
        calls.map((c) => shardOf(c.sessionId)),
        calls.map((c) => c.operation),
        calls.map((c) => c.arguments),
        calls.map((c) => JSON.stringify(c.answer)),
        calls.map((c) => c.calledAt),
      ],
    );
  }

  /** The shards a batch writes: those of its puts' Sessions, of the stored rows it deletes and of its calls' Sessions. */
  private async touchedShards(client: SqlClient, batch: PreparedBatch, columns: readonly { shard: number }[]): Promise<number[]> {
    const shards = new Set(columns.map((c) => c.shard));
    for (const call of [...(batch.calls ?? []), ...(batch.forgetCalls ?? [])]) shards.add(shardOf(call.sessionId));
    if (batch.deletes.length > 0) {
      const stored = await client.query(`select distinct shard from ${this.quoted}.tasks where id = any($1::text[])`, [batch.deletes]);
      for (const r of stored.rows) shards.add(Number(r.shard));
    }
    return [...shards];
  }

  /**
   * Takes `count` fresh task numbers from the database sequence (unique across every Host that
   * uses the schema, never handed out again, even when the task they name is never stored).
   *
   * @throws ScheduleError `persistence_uncertain` when the database cannot be reached.
   */
  async allocateTaskNumbers(count: number): Promise<number[]> {
    if (this.phase !== 'open') throw new ScheduleError('internal_error', `The PostgreSQL schedule storage (${this.schema}) is not open.`);
    if (!Number.isSafeInteger(count) || count < 1 || count > 10_000) {
      throw new ScheduleError('internal_error', `allocateTaskNumbers takes a count of 1-10000, not ${String(count)}.`);
    }
    const shared = this.options.taskNumbers;
    if (shared === undefined) return this.fromSequence(count);
    const numbers = await shared.take(count, (n) => this.fromSequence(n));
    // Every number handed out was taken from the sequence, which has so passed it.
    const last = numbers.at(-1);
    if (last !== undefined) this.sequenceFloor = Math.max(this.sequenceFloor, last + 1);
    return numbers;
  }

  /** `count` numbers taken from the sequence now. */
  private async fromSequence(count: number): Promise<number[]> {
    const client = await this.connect('No task number could be taken: the database cannot be reached');
    let broken: Error | undefined;
    try {
      // Allocations hold the counter lock shared: they never wait for one another. One statement is
      // its own transaction, so the lock (taken before the first number, the CTE being read first)
      // is held only while it runs and never by a paused Host.
      const result = await client.query(
        `with counter as materialized (select pg_advisory_xact_lock_shared(hashtextextended($1, 0)))
         select nextval('${this.quoted}.task_number')::text as n from counter, generate_series(1, $2::int)`,
        [counterLockKey(this.schema), count],
      );
      const numbers = result.rows.map((r) => Number(r.n)).sort((a, b) => a - b);
      const last = numbers.at(-1);
      if (last !== undefined) this.sequenceFloor = Math.max(this.sequenceFloor, last + 1);
      return numbers;
    } catch (error) {
      if (isConnectionFailure(error)) {
        broken = error instanceof Error ? error : new Error(String(error));
        this.noteConnectionFailure(error);
      }
      throw uncertain('No task number could be taken', error);
    } finally {
      client.release(broken);
    }
  }

  /** Waits for the commits in flight, then ends the own pool; the instance can open again. */
  async close(): Promise<void> {
    if (this.phase === 'closed' || this.phase === 'closing') return;
    if (this.phase === 'opening') {
      await this.opening;
      if ((this.phase as Phase) !== 'open') return;
    }
    this.phase = 'closing';
    if (this.renewTimer !== undefined) clearTimeout(this.renewTimer);
    this.renewTimer = undefined;
    await this.renewing;
    await this.tail;
    await this.giveOwner();
    await this.endPool();
    this.phase = 'closed';
  }

  /** While open, the owner lease is renewed every third of it (each commit renews it too). */
  private scheduleRenewal(): void {
    const owner = this.owner;
    if (owner === undefined || this.phase !== 'open') return;
    this.renewTimer = setTimeout(
      () => {
        this.renewTimer = undefined;
        this.renewing = this.renewOwner(owner).then(() => this.scheduleRenewal());
      },
      Math.max(1, Math.floor(owner.leaseMs / 3)),
    );
    this.renewTimer.unref?.();
  }

  /** One renewal; a failure is left to the next one (and to the commits, which check the claim themselves). */
  private async renewOwner(owner: StorageOwner): Promise<void> {
    let client: SqlClient;
    try {
      client = await this.connect('The owner lease of the schedule schema could not be renewed');
    } catch {
      return;
    }
    let broken: Error | undefined;
    try {
      await owner.renew(client);
    } catch (error) {
      if (isConnectionFailure(error)) broken = error instanceof Error ? error : new Error(String(error));
    } finally {
      client.release(broken);
    }
  }

  /** Gives the schema's owner row up, so the next opener need not wait for the lease to run out. */
  private async giveOwner(): Promise<void> {
    const owner = this.owner;
    if (owner === undefined || this.pool === undefined) {
      owner?.forget();
      return;
    }
    let client: SqlClient;
    try {
      client = await this.connect('The schedule schema could not be given up');
    } catch {
      owner.forget();
      return;
    }
    let broken: Error | undefined;
    try {
      await owner.give(client);
    } catch (error) {
      // The lease runs out on its own.
      owner.forget();
      if (isConnectionFailure(error)) broken = error instanceof Error ? error : new Error(String(error));
    } finally {
      client.release(broken);
    }
  }

  private async connect(what: string): Promise<SqlClient> {
    const pool = this.pool;
    if (pool === undefined) throw new ScheduleError('internal_error', `The PostgreSQL schedule storage (${this.schema}) has no pool.`);
    try {
      const client = await pool.connect();
      // A pg client whose socket closes emits 'error' besides failing its query; the query's
      // failure is what reports it, so a listener must be there or the process would crash.
      const events = client as unknown as { on?(event: 'error', fn: () => void): void; off?(event: 'error', fn: () => void): void };
      const ignore = () => undefined;
      events.on?.('error', ignore);
      return {
        query: (text, values) => client.query(text, values),
        release: (error) => {
          if (error === undefined || error === false) events.off?.('error', ignore);
          client.release(error);
        },
      };
    } catch (error) {
      this.noteConnectionFailure(error);
      throw new ScheduleError('persistence_uncertain', `${what} (${reasonOf(error)}).`, { cause: error });
    }
  }

  private noteConnectionFailure(error: unknown): void {
    const initial = this.options.reconnect?.initialMs ?? 100;
    const max = this.options.reconnect?.maxMs ?? 5000;
    this.lastFailure = error;
    this.retryAt = Date.now() + Math.min(max, initial * 2 ** Math.min(this.failures, 30));
    this.failures++;
  }

  private async endPool(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (pool !== undefined && this.options.pool === undefined) await pool.end().catch(() => undefined);
  }
}

/**
 * A storage on PostgreSQL (`pg`): `postgresStorage({ connectionString: 'postgres://…/db' })`, or
 * `{ pool }` for a pool of your own, and `schema` for the schema holding the tables.
 */
export const postgresStorage = (options: PostgresStorageOptions): PostgresStorage => new PostgresStorage(options);

/** The advisory lock that orders moves of the task-number sequence against allocations from it. */
const counterLockKey = (schema: string): string => `agent-schedule counter ${schema}`;

/** The number the task-number sequence hands out next. */
async function sequenceNext(client: SqlClient, quotedSchema: string): Promise<number> {
  const result = await client.query(`select last_value::text as last_value, is_called from ${quotedSchema}.task_number`);
  return nextOfSequence(result.rows[0]);
}

/** The number a sequence hands out next, from its row (`last_value` as text, `is_called`). */
const nextOfSequence = (seq: Record<string, unknown> | undefined): number =>
  seq === undefined ? 1 : Number(seq.last_value) + (seq.is_called === true ? 1 : 0);
