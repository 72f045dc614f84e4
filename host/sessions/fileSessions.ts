// File-backed Sessions: the Session controller of the reference Host. Each Session keeps a JSONL
// transcript under `<dir>/<sessionId>.jsonl`. `followup` appends to an in-memory inbox (sync);
// `flush` appends the inbox (and the demo agent's answers) to the file and fsyncs it before it
// resolves. A cold Session is restored from its file, including the idempotency keys of every
// reminder it ever received, so a redelivery after a crash (flushed, but the receipt never
// committed) is dropped and answered with the id of the message holding it; a batch that repeats
// some of them next to reminders due since is appended with the new ones only (the scheduler's
// receipts of the repeated ones then name that message), and one whose reminders are all held
// by several messages is answered with a new id recorded as a note. Usable without any server.
import { join } from 'node:path';
import type { FollowupMessage, FollowupMeta, ScheduleAgent, SessionController } from '../../src/index.ts';
import { demoReplies } from './demoAgent.ts';
import { keepReminders } from './reminderBatch.ts';
import { isSessionId, requireSessionId } from './sessionId.ts';
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

interface LiveSession {
  readonly id: string;
  readonly path: string;
  nextNumber: number;
  /** Idempotency key → id of the message that carried it; durable ones only. */
  readonly delivered: Map<string, string>;
  inbox: Array<Omit<TranscriptLine, 'at'>>;
  chain: Promise<void>;
  broken: boolean;
  fileExists: boolean;
}

const MESSAGE_ID = /^msg-(\d+)$/;

/** Creates the file-backed Session controller over `options.dir`. */
export function createFileSessions(options: FileSessionsOptions): FileSessions {
  const live = new Map<string, Promise<LiveSession>>();
  const listeners = new Set<(append: TranscriptAppend) => void>();
  const inFlight = new Set<Promise<void>>();
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
      const number = Number(MESSAGE_ID.exec(line.messageId)?.[1] ?? 0);
      session.nextNumber = Math.max(session.nextNumber, number + 1);
      for (const key of line.idempotencyKeys ?? []) session.delivered.set(key, line.messageId);
    }
    return session;
  }

  function followup(session: LiveSession, message: FollowupMessage, meta?: FollowupMeta): { messageId: string } {
    if (session.broken) throw new Error(`Session ${session.id} lost its inbox in a failed flush; resolve it again.`);
    const keys = [...(meta?.idempotencyKeys ?? [])];
    const pending = new Map(session.inbox.flatMap((line) => (line.idempotencyKeys ?? []).map((key) => [key, line.messageId] as const)));
    const known = keys.map((key) => session.delivered.get(key) ?? pending.get(key));
    const original = known[0];
    // Every reminder already held by one message: that message is the answer.
    if (keys.length > 0 && original !== undefined && known.every((id) => id === original)) return { messageId: original };
    const fresh = keys.filter((_, i) => known[i] === undefined);
    const messageId = `msg-${session.nextNumber++}`;
    // Every reminder held, but by several messages: no one message holds them all. The answer is a
    // new id — the scheduler's receipts must name a message id new to each task — kept in the
    // transcript as a short note (no reminder, no keys), so the id is never handed out again.
    if (keys.length > 0 && fresh.length === 0) {
      const holders = [...new Set(known)].join(', ');
      session.inbox.push({ messageId, role: 'user', producer: 'session', text: `Redelivered reminders already held by ${holders}.` });
      return { messageId };
    }
    const narrowed = fresh.length === keys.length ? undefined : keepReminders(message.text, keys, new Set(fresh));
    session.inbox.push({
      messageId,
      role: 'user',
      producer: message.producer,
      text: narrowed ?? message.text,
      idempotencyKeys: narrowed === undefined ? keys : fresh,
    });
    return { messageId };
  }

  async function writeInbox(session: LiveSession): Promise<void> {
    const batch = session.inbox;
    if (batch.length === 0) return;
    session.inbox = [];
    const at = new Date(options.now()).toISOString();
    const lines: TranscriptLine[] = [];
    for (const message of batch) {
      lines.push({ ...message, at });
      if (options.demoAgent === false) continue;
      demoReplies(message.text).forEach((text, i) => {
        lines.push({ messageId: `${message.messageId}.r${i + 1}`, role: 'assistant', producer: 'demo-agent', text, at });
      });
    }
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
    for (const listener of [...listeners]) listener({ sessionId: session.id, lines });
  }

  function agentOf(session: LiveSession): ScheduleAgent {
    return {
      followup: (message, meta) => followup(session, message, meta),
      flush() {
        const run = session.chain.then(() => writeInbox(session));
        session.chain = run.catch(() => undefined);
        const tracked = session.chain;
        inFlight.add(tracked);
        void tracked.finally(() => inFlight.delete(tracked));
        return run;
      },
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
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    evict(sessionId) {
      live.delete(sessionId);
    },
    async close() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
