// Fake Sessions whose delivery attempts wait for the test: every `resolveAgent` call is held
// until the test releases it — to succeed, or to fail at resolve, followup or flush. A held
// attempt is a delivery in flight, so a test can act while it lasts (edit, delete, stop the
// Session) and then decide how it ends. Flushed messages are kept by `createFakeSessions`.
import type { SessionController } from '../../src/ports.ts';
import { createFakeSessions, type FailurePoint, type FakeSessions } from '../../src/testing.ts';

/** How a held attempt ends: `ok`, or the Session failing at that point. */
export type AttemptEnd = 'ok' | FailurePoint;

interface Held {
  readonly sessionId: string;
  readonly go: () => void;
}

export interface HeldSessions extends SessionController {
  /** The Sessions' flushed messages. */
  readonly fake: FakeSessions;
  /** Attempts waiting to be released, oldest first (their Session ids). */
  readonly held: readonly string[];
  /** Lets the oldest held attempt go on, ending as `end` says. */
  release(end: AttemptEnd): void;
  /** Resolves as soon as an attempt is held (at once when one already is). */
  whenHeld(): Promise<void>;
}

export function createHeldSessions(): HeldSessions {
  const fake = createFakeSessions();
  const queue: Held[] = [];
  let waiters: Array<() => void> = [];

  return {
    fake,
    get held() {
      return queue.map((h) => h.sessionId);
    },
    async resolveAgent(sessionId) {
      await new Promise<void>((go) => {
        queue.push({ sessionId, go });
        const ready = waiters;
        waiters = [];
        for (const wake of ready) wake();
      });
      return fake.resolveAgent(sessionId);
    },
    release(end) {
      const next = queue.shift();
      if (next === undefined) throw new Error('release: no delivery attempt is held');
      if (end !== 'ok') fake.failNext(next.sessionId, end);
      next.go();
    },
    whenHeld() {
      if (queue.length > 0) return Promise.resolve();
      return new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
