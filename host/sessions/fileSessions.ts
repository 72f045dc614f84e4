// File-backed Sessions: the Session controller of the reference Host. Each Session keeps a JSONL
// transcript under `<dir>/<sessionId>.jsonl`. `followup` appends to an in-memory inbox (sync);
// `flush` appends the inbox (and the demo agent's answers) to the file and fsyncs it before it
// resolves. A cold Session is restored from its file, including the idempotency keys of every
// reminder it ever received, so a redelivery after a crash (flushed, but the receipt never
// committed) is answered as followupDedupe.ts decides: dropped and answered with the id of the
// message holding it, or narrowed to the reminders no message holds. Usable without any server.
import { join } from 'node:path';
import type { ScheduleAgent, SessionController } from '../../src/index.ts';
import { flushLines } from './demoAgent.ts';
import { followupInto, messageNumber, type SessionInbox } from './followupDedupe.ts';
import { isSessionId, requireSessionId } from './sessionId.ts';
import { createSessionWork, type WorkChain } from './sessionWork.ts';
import { appendLines, readTranscript, repairTornTail, type TranscriptLine } from './transcript.ts';
import { ensureDir, listTranscripts, syncDir } from './transcriptDir.ts';

export interface FileSessionsOptions {
  /** The folder holding one `<sessionId>.jsonl` per Session (created when missing). */
  readonly dir: string;
  /** The Host's wall clock, for the transcript timestamps. */
  readonly now: () => number;
  /** Whether the demo agent answers delivered reminders (default true). */
  readonly demoAgent?: boolean;
}

/** Lines one flush made durable. */
export interface TranscriptAppend {
  readonly sessionId: string;
  readonly lines: readonly TranscriptLine[];
}

/** The Host's Session controller plus what its UI and tests read. */
export interface FileSessions extends SessionController {
  /** The durable transcript of a Session (empty for an unknown one). */
  transcript(sessionId: string): Promise<TranscriptLine[]>;
  /** Ids of the Sessions that have a transcript file. */
  list(): Promise<string[]>;
  /** Called after each flush that wrote lines. */
  subscribe(listener: (append: TranscriptAppend) => void): () => void;
  /** Drops a Session from memory, as if its process had gone; the next `resolveAgent` restores it. */
  evict(sessionId: string): void;
  /** Waits for the flushes in progress. */
  close(): Promise<void>;
}

interface LiveSession extends SessionInbox, WorkChain {
  readonly path: string;
  /** Idempotency key → id of the message that carried it; durable ones only. */
  readonly delivered: Map<string, string>;
  fileExists: boolean;
}

/** Creates the file-backed Session controller over `options.dir`. */
export function createFileSessions(options: FileSessionsOptions): FileSessions {
  const live = new Map<string, Promise<LiveSession>>();
  const work = createSessionWork();
  const pathOf = (sessionId: string) => join(options.dir, `${sessionId}.jsonl`);

  async function restore(id: string): Promise<LiveSession> {
    const path = pathOf(id);
    const read = await readTranscript(path);
    if (read !== null) await repairTornTail(path, read.text);
    const session: LiveSession = {
      id,
      path,
      nextNumber: 1,
      delivered: new Map(),
      inbox: [],
      chain: Promise.resolve(),
      broken: false,
      fileExists: read !== null,
    };
    for (const line of read?.lines ?? []) {
      session.nextNumber = Math.max(session.nextNumber, messageNumber(line.messageId) + 1);
      for (const key of line.idempotencyKeys ?? []) session.delivered.set(key, line.messageId);
    }
    return session;
  }

  async function writeInbox(session: LiveSession): Promise<void> {
    const batch = session.inbox;
    if (batch.length === 0) return;
    session.inbox = [];
    const lines = flushLines(batch, new Date(options.now()).toISOString(), options.demoAgent !== false);
    try {
      if (!session.fileExists) await ensureDir(options.dir);
      await appendLines(session.path, lines);
      if (!session.fileExists) await syncDir(options.dir);
      session.fileExists = true;
    } catch (error) {
      // What reached the file is unknown: forget this copy; the next resolve rereads the file.
      session.broken = true;
      live.delete(session.id);
      throw error;
    }
    for (const line of lines) for (const key of line.idempotencyKeys ?? []) session.delivered.set(key, line.messageId);
    work.announce({ sessionId: session.id, lines });
  }

  function agentOf(session: LiveSession): ScheduleAgent {
    return {
      followup: (message, meta) => followupInto(session, message, meta),
      flush: () => work.serialize(session, () => writeInbox(session)),
    };
  }

  return {
    async resolveAgent(sessionId) {
      const id = requireSessionId(sessionId);
      let session = live.get(id);
      if (session === undefined) {
        session = restore(id);
        live.set(id, session);
        session.catch(() => live.delete(id));
      }
      return agentOf(await session);
    },
    async transcript(sessionId) {
      if (!isSessionId(sessionId)) return [];
      return (await readTranscript(pathOf(sessionId)))?.lines ?? [];
    },
    list: () => listTranscripts(options.dir),
    subscribe: work.subscribe,
    evict(sessionId) {
      live.delete(sessionId);
    },
    close: work.close,
  };
}
