// What a Session controller keeps across its Sessions, whatever stores the transcripts: each
// Session's reads and flushes run one after the other, `close` waits for all of them, and the
// subscribers hear what each flush made durable.
import type { TranscriptAppend } from './fileSessions.ts';

/** A Session's work so far: the next piece starts when it settles. */
export interface WorkChain {
  chain: Promise<void>;
}

export interface SessionWork {
  /** Runs `work` after the Session's earlier work; waited for by `close`. */
  serialize(session: WorkChain, work: () => Promise<void>): Promise<void>;
  /** Tells every subscriber what a flush made durable. */
  announce(append: TranscriptAppend): void;
  /** Adds a subscriber; the returned function removes it. */
  subscribe(listener: (append: TranscriptAppend) => void): () => void;
  /** Waits for the work in progress, including work started meanwhile. */
  close(): Promise<void>;
}

export function createSessionWork(): SessionWork {
  const listeners = new Set<(append: TranscriptAppend) => void>();
  const inFlight = new Set<Promise<void>>();
  return {
    serialize(session, work) {
      const run = session.chain.then(work);
      session.chain = run.catch(() => undefined);
      const tracked = session.chain;
      inFlight.add(tracked);
      void tracked.finally(() => inFlight.delete(tracked));
      return run;
    },
    announce(append) {
      for (const listener of [...listeners]) listener(append);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
