// The Sessions' transcripts in PostgreSQL: the Host's own tables beside the schedule's, in the
// same schema, and the statements on them. `host_transcript_sessions` has one row per Session
// that has a transcript; a writer locks it for the length of its transaction, so the appends to
// one Session are serialized across processes and `seq` (1, 2, 3… per Session) is their order.
// `host_transcript_messages` has one row per transcript line (the line's fields; `created_at`
// is the Host's clock at the flush) and `host_transcript_keys` one row per reminder a Session
// received (its idempotency key, unique per Session, and the message holding it). A message's
// `host_id` (nullable, added to older tables at start) is the Host that wrote it — for a reminder,
// the replica that delivered it. An append of reminders a cluster Host took under a shard lease is
// fenced like the schedule's commits: its transaction first locks and checks the lease rows
// (`checkFence`), so a Host that lost the lease meanwhile, however long it stalled, writes nothing.
import {
  checkFence,
  guardedPool,
  isConnectionFailure,
  migrate,
  quoteSchema,
  type SqlClient,
  type SqlPool,
} from '../../src/entries/postgres.ts';
import type { FollowupLease } from '../../src/index.ts';
import type { TranscriptLine } from './transcript.ts';

/** What the Session controller needs of a stored message to know the Session: its id and keys. */
export interface StoredMessage {
  readonly seq: number;
  readonly messageId: string;
  readonly idempotencyKeys: readonly string[];
}

/** A write that found lines it had not read: another process appended to the Session meanwhile. */
export class TranscriptChangedError extends Error {
  constructor(readonly sessionId: string) {
    super(`The transcript of Session ${sessionId} was appended to by another process since it was read; nothing was written.`);
    this.name = 'TranscriptChangedError';
  }
}

const tableSql = (q: string) => `
create table if not exists ${q}.host_transcript_sessions (
  session_id text primary key,
  created_at timestamptz not null default now()
);
create table if not exists ${q}.host_transcript_messages (
  session_id text not null references ${q}.host_transcript_sessions (session_id),
  seq integer not null check (seq > 0),
  message_id text not null,
  role text not null check (role in ('user', 'assistant')),
  producer text not null,
  text text not null,
  idempotency_keys text[],
  created_at timestamptz not null,
  primary key (session_id, seq),
  unique (session_id, message_id)
);
create table if not exists ${q}.host_transcript_keys (
  session_id text not null,
  idempotency_key text not null,
  message_id text not null,
  primary key (session_id, idempotency_key),
  foreign key (session_id, message_id) references ${q}.host_transcript_messages (session_id, message_id)
);
alter table ${q}.host_transcript_messages add column if not exists host_id text;
`;

/** A text as PostgreSQL can hold it: NUL, which it cannot, becomes U+FFFD (as the driver stores an unpaired surrogate). */
const storable = (text: string): string => text.replaceAll('\u0000', '\uFFFD');

/** The quoted schema and the tables in it. */
export interface TranscriptTables {
  readonly schema: string;
  readonly sessions: string;
  readonly messages: string;
  readonly keys: string;
}

/** The tables in `schema` (a plain identifier; throws otherwise). */
export function transcriptTables(schema: string): TranscriptTables {
  const q = quoteSchema(schema);
  return {
    schema: q,
    sessions: `${q}.host_transcript_sessions`,
    messages: `${q}.host_transcript_messages`,
    keys: `${q}.host_transcript_keys`,
  };
}

/**
 * Runs `work` on one client of `pool`; a client whose connection failed is discarded. The client
 * listens for socket errors while checked out (guardedPool), so a dead connection fails the query
 * instead of crashing the process.
 */
async function withClient<T>(pool: SqlPool, work: (client: SqlClient) => Promise<T>): Promise<T> {
  const client = await guardedPool(pool).connect();
  let broken: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    if (isConnectionFailure(error)) broken = error as Error;
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * How long a transcript transaction may sit idle holding a Session's lock before the server ends
 * it: a replica paused in the middle of a flush must not keep the others from that Session.
 */
const TRANSACTION_IDLE_MS = 5_000;

/** Runs `work` in one transaction, rolled back when it throws. */
async function inTransaction<T>(client: SqlClient, work: () => Promise<T>): Promise<T> {
  await client.query(`begin; set local idle_in_transaction_session_timeout = ${TRANSACTION_IDLE_MS}`);
  try {
    const result = await work();
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  }
}

/**
 * Brings the schedule's schema up to date (creating it when missing) and creates the transcript
 * tables in it unless they exist, under an advisory lock, so Hosts starting together create them once.
 */
export async function createTranscriptTables(pool: SqlPool, schema: string): Promise<void> {
  const tables = transcriptTables(schema);
  await withClient(pool, async (client) => {
    await migrate(client, schema);
    await inTransaction(client, async () => {
      await client.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`agent-schedule host transcripts ${schema}`]);
      await client.query(tableSql(tables.schema));
    });
  });
}

const keysOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((key): key is string => typeof key === 'string') : []);

/** The messages of a Session after `afterSeq`, in order (only what the controller needs of them). */
export async function readMessagesAfter(
  pool: SqlPool,
  tables: TranscriptTables,
  sessionId: string,
  afterSeq: number,
): Promise<StoredMessage[]> {
  const result = await withClient(pool, (client) =>
    client.query(`select seq, message_id, idempotency_keys from ${tables.messages} where session_id = $1 and seq > $2 order by seq`, [
      sessionId,
      afterSeq,
    ]),
  );
  return result.rows.map((row) => ({
    seq: Number(row.seq),
    messageId: String(row.message_id),
    idempotencyKeys: keysOf(row.idempotency_keys),
  }));
}

/** The whole transcript of a Session, in order; empty for an unknown one. */
export async function readTranscriptLines(pool: SqlPool, tables: TranscriptTables, sessionId: string): Promise<TranscriptLine[]> {
  const result = await withClient(pool, (client) =>
    client.query(
      `select message_id, role, producer, text, idempotency_keys, created_at, host_id from ${tables.messages} where session_id = $1 order by seq`,
      [sessionId],
    ),
  );
  return result.rows.map((row) => {
    const keys = row.idempotency_keys === null || row.idempotency_keys === undefined ? undefined : keysOf(row.idempotency_keys);
    return {
      messageId: String(row.message_id),
      role: row.role === 'assistant' ? 'assistant' : 'user',
      producer: String(row.producer),
      text: String(row.text),
      ...(keys === undefined ? {} : { idempotencyKeys: keys }),
      at: new Date(row.created_at as Date | string).toISOString(),
      ...(row.host_id === null || row.host_id === undefined ? {} : { hostId: String(row.host_id) }),
    };
  });
}

/** The ids of the Sessions that have a transcript, sorted. */
export async function listTranscriptSessions(pool: SqlPool, tables: TranscriptTables): Promise<string[]> {
  const result = await withClient(pool, (client) => client.query(`select session_id from ${tables.sessions} order by session_id`));
  return result.rows.map((row) => String(row.session_id));
}

/**
 * Locks and checks, in shard order, each distinct lease of `leases`: a lease held by another Host,
 * at another epoch, released or expired by the database's clock fails the transaction.
 */
async function checkLeases(client: SqlClient, tables: TranscriptTables, leases: readonly FollowupLease[]): Promise<void> {
  const distinct = new Map(leases.map((lease) => [`${lease.shard}\u0000${lease.epoch}\u0000${lease.hostId}`, lease]));
  const ordered = [...distinct.values()].sort((a, b) => a.shard - b.shard || a.epoch - b.epoch);
  for (const { hostId, shard, epoch } of ordered) {
    await checkFence(client, tables.schema, { hostId, epochs: () => new Map([[shard, epoch]]) }, [shard]);
  }
}

/**
 * Appends `lines` to a Session whose transcript was read up to `afterSeq`, in one transaction
 * holding the Session's row lock, and resolves with the `seq` of the last line. Each line's keys
 * are recorded for the Session unless a message already holds them. The transaction first checks
 * `leases` (the shard leases the lines' reminders were taken under) and holds their rows locked
 * `FOR KEY SHARE` until it ends, so no other Host takes those shards before the lines are written.
 *
 * @throws LeaseLostError (nothing written) when a lease of `leases` is no longer the Host's at its epoch.
 * @throws TranscriptChangedError (nothing written) when the Session has lines after `afterSeq`.
 */
export async function appendTranscriptLines(
  pool: SqlPool,
  tables: TranscriptTables,
  sessionId: string,
  afterSeq: number,
  lines: readonly TranscriptLine[],
  leases: readonly FollowupLease[] = [],
): Promise<number> {
  return withClient(pool, (client) =>
    inTransaction(client, async () => {
      await checkLeases(client, tables, leases);
      await client.query(
        `insert into ${tables.sessions} (session_id) values ($1) on conflict (session_id) do update set session_id = excluded.session_id`,
        [sessionId],
      );
      const newer = await client.query(`select 1 from ${tables.messages} where session_id = $1 and seq > $2 limit 1`, [
        sessionId,
        afterSeq,
      ]);
      if (newer.rows.length > 0) throw new TranscriptChangedError(sessionId);
      let seq = afterSeq;
      for (const line of lines) {
        seq += 1;
        const keys = line.idempotencyKeys;
        await client.query(
          `insert into ${tables.messages} (session_id, seq, message_id, role, producer, text, idempotency_keys, created_at, host_id)
           values ($1, $2, $3, $4, $5, $6, $7::text[], $8::timestamptz, $9)`,
          [
            sessionId,
            seq,
            line.messageId,
            line.role,
            line.producer,
            storable(line.text),
            keys === undefined ? null : [...keys],
            line.at,
            line.hostId === undefined ? null : storable(line.hostId),
          ],
        );
        if (keys !== undefined && keys.length > 0) {
          await client.query(
            `insert into ${tables.keys} (session_id, idempotency_key, message_id)
             select $1, key, $2 from unnest($3::text[]) as key on conflict do nothing`,
            [sessionId, line.messageId, [...keys]],
          );
        }
      }
      return seq;
    }),
  );
}
