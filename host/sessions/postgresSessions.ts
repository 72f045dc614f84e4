// PostgreSQL-backed Sessions: the Session controller of the reference Host on a database
// (DATABASE_URL). Transcripts are rows (postgresTranscripts.ts), so every Host process on the
// database reads, and can deliver into, the same Sessions. The semantics are the file-backed
// Sessions' (fileSessions.ts): `followup` appends to an in-memory inbox (sync); `flush` writes the
// inbox and the demo agent's answers in one transaction before it resolves; a redelivered
// reminder (its idempotency key already held by a message) is answered as followupDedupe.ts
// decides.
// Across processes: each `resolveAgent` first reads what was appended since this process last
// read the Session (other processes' messages and keys), and each flush locks the Session and
// writes only if nothing was appended since; otherwise it writes nothing and rejects, and the
// scheduler's retry resolves the Session again and sees the other process's messages. The keys
// are unique per Session in the database too. Each line records the Host id of the process that
// wrote it, when it has one (a cluster replica's).
// On a cluster, each followup names the shard lease it was taken under (`meta.lease`); the flush
// writes only if every lease named since the last flush is still the Host's at its epoch, checked
// in its own transaction (postgresTranscripts.ts), so a replica that stalled after its followup
// and lost the shard meanwhile writes nothing and the flush rejects.
import type { SqlPool } from '../../src/entries/postgres.ts';
import type { FollowupLease, ScheduleAgent } from '../../src/index.ts';
import { flushLines } from './demoAgent.ts';
import type { FileSessions } from './fileSessions.ts';
import { followupInto, type InboxLine, messageNumber, type SessionInbox } from './followupDedupe.ts';
import {
  appendTranscriptLines,
  listTranscriptSessions,
  readMessagesAfter,
  readTranscriptLines,
  type StoredMessage,
  transcriptTables,
} from './postgresTranscripts.ts';
import { isSessionId, requireSessionId } from './sessionId.ts';
import { createSessionWork, type WorkChain } from './sessionWork.ts';

export interface PostgresSessionsOptions {
  /** The pool the transcripts are read and written through (never ended here). */
  readonly pool: SqlPool;
  /** The schema holding the transcript tables (created beforehand by `createTranscriptTables`). */
  readonly schema: string;
  /** The Host's wall clock, for the transcript timestamps. */
  readonly now: () => number;
  /** Whether the demo agent answers delivered reminders (default true). */
  readonly demoAgent?: boolean;
  /** The Host (replica) writing: recorded with every line it appends (`hostId`), so a transcript tells which replica delivered each reminder. */
  readonly hostId?: string;
}

interface LiveSession extends SessionInbox, WorkChain {
  /** The `seq` of the last stored line this process has read or written. */
  lastSeq: number;
  /** Idempotency key → id of the stored message holding it. */
  readonly delivered: Map<string, string>;
  /** The lines of the flush in progress. */
  writing: readonly InboxLine[];
  /** The shard leases the followups since the last flush were taken under. */
  leases: FollowupLease[];
}

/** How often `resolveAgent` starts over when the Session it read was dropped by a failed flush meanwhile. */
const RESOLVE_ATTEMPTS = 3;

/** Creates the PostgreSQL-backed Session controller (the same interface as the file-backed one). */
export function createPostgresSessions(options: PostgresSessionsOptions): FileSessions {
  const { pool } = options;
  const tables = transcriptTables(options.schema);
  const live = new Map<string, LiveSession>();
  const work = createSessionWork();

  const liveSession = (id: string): LiveSession => {
    let session = live.get(id);
    if (session === undefined) {
      session = {
        id,
        lastSeq: 0,
        nextNumber: 1,
        delivered: new Map(),
        inbox: [],
        writing: [],
        leases: [],
        chain: Promise.resolve(),
        broken: false,
      };
      live.set(id, session);
    }
    return session;
  };

  function learn(session: LiveSession, messages: readonly StoredMessage[]): void {
    for (const message of messages) {
      session.lastSeq = Math.max(session.lastSeq, message.seq);
      session.nextNumber = Math.max(session.nextNumber, messageNumber(message.messageId) + 1);
      for (const key of message.idempotencyKeys) if (!session.delivered.has(key)) session.delivered.set(key, message.messageId);
    }
  }

  async function refresh(session: LiveSession): Promise<void> {
    learn(session, await readMessagesAfter(pool, tables, session.id, session.lastSeq));
  }

  async function writeInbox(session: LiveSession): Promise<void> {
    const batch = session.inbox;
    const leases = session.leases;
    session.leases = [];
    if (batch.length === 0) return;
    session.inbox = [];
    session.writing = batch;
    const flushed = flushLines(batch, new Date(options.now()).toISOString(), options.demoAgent !== false);
    const { hostId } = options;
    const lines = hostId === undefined ? flushed : flushed.map((line) => ({ ...line, hostId }));
    let lastSeq: number;
    try {
      lastSeq = await appendTranscriptLines(pool, tables, session.id, session.lastSeq, lines, leases);
    } catch (error) {
      // Another process appended meanwhile, a lease was lost, or the outcome is unknown: forget
      // this copy and its inbox; the next resolve reads the Session again from the database.
      session.broken = true;
      if (live.get(session.id) === session) live.delete(session.id);
      throw error;
    } finally {
      session.writing = [];
    }
    session.lastSeq = lastSeq;
    for (const line of lines)
      for (const key of line.idempotencyKeys ?? []) if (!session.delivered.has(key)) session.delivered.set(key, line.messageId);
    work.announce({ sessionId: session.id, lines });
  }

  function agentOf(session: LiveSession): ScheduleAgent {
    return {
      followup: (message, meta) => {
        const answer = followupInto(session, message, meta, session.writing);
        if (meta?.lease !== undefined) session.leases.push(meta.lease);
        return answer;
      },
      flush: () => work.serialize(session, () => writeInbox(session)),
    };
  }

  return {
    async resolveAgent(sessionId) {
      const id = requireSessionId(sessionId);
      for (let attempt = 1; ; attempt++) {
        const session = liveSession(id);
        await work.serialize(session, () => refresh(session));
        if (!session.broken || attempt >= RESOLVE_ATTEMPTS) return agentOf(session);
      }
    },
    async transcript(sessionId) {
      if (!isSessionId(sessionId)) return [];
      return readTranscriptLines(pool, tables, sessionId);
    },
    list: async () => (await listTranscriptSessions(pool, tables)).filter(isSessionId),
    subscribe: work.subscribe,
    evict(sessionId) {
      live.delete(sessionId);
    },
    close: work.close,
  };
}
