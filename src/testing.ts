// Test helpers for Hosts and for this project (`agent-schedule/testing`, docs/api.md): a manual clock
// whose timers fire only when the test moves time, and fake Sessions that keep what was flushed.
import type { Clock, FollowupMessage, FollowupMeta, ScheduleAgent, SessionController } from './ports.ts';

/** Something whose background work can be awaited (a schedule service). */
export interface Settleable {
  whenIdle(): Promise<void>;
}

export interface ManualClock extends Clock {
  /** Moves the wall clock forward by `ms`, firing due timers in order; `advance(0)` fires those due now. */
  advance(ms: number): Promise<void>;
  /** Sets the wall clock (backwards too) and fires the timers due at the new time. */
  set(iso: string): Promise<void>;
  /** Lets timers' work finish (awaiting the service's `whenIdle`) before the next timer fires. */
  attach(service: Settleable): void;
  /** Timers waiting to fire. */
  readonly pendingTimers: number;
}

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
}

const macrotask = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A wall clock that stands still until the test moves it. Timers are keyed on wall time. */
export function createManualClock(startIso: string): ManualClock {
  let now = Date.parse(startIso);
  if (!Number.isFinite(now)) throw new TypeError(`createManualClock: ${JSON.stringify(startIso)} is not an ISO instant.`);
  let seq = 0;
  const timers = new Map<number, Timer>();
  const attached = new Set<Settleable>();

  const settle = async (): Promise<void> => {
    await macrotask();
    for (const service of attached) await service.whenIdle();
    await macrotask();
  };

  const nextDue = (limit: number): [number, Timer] | undefined => {
    let best: [number, Timer] | undefined;
    for (const entry of timers) {
      const t = entry[1];
      if (t.due > limit) continue;
      if (best === undefined || t.due < best[1].due || (t.due === best[1].due && t.seq < best[1].seq)) best = entry;
    }
    return best;
  };

  const fireUntil = async (limit: number): Promise<void> => {
    for (let fired = 0; ; fired++) {
      if (fired > 1_000_000) throw new Error('createManualClock: more than a million timer firings in one step (a spinning timer?)');
      const next = nextDue(limit);
      if (next === undefined) return;
      timers.delete(next[0]);
      if (next[1].due > now) now = next[1].due;
      next[1].fn();
      await settle();
    }
  };

  return {
    now: () => now,
    setTimeout(fn, ms) {
      const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
      const id = ++seq;
      timers.set(id, { due: now + delay, seq: id, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    async advance(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance(ms) needs a non-negative number of milliseconds.');
      const target = now + ms;
      await settle();
      await fireUntil(target);
      if (target > now) now = target;
      await settle();
    },
    async set(iso) {
      const target = Date.parse(iso);
      if (!Number.isFinite(target)) throw new TypeError(`set: ${JSON.stringify(iso)} is not an ISO instant.`);
      now = target;
      await settle();
      await fireUntil(now);
    },
    attach(service) {
      attached.add(service);
    },
    get pendingTimers() {
      return timers.size;
    },
  };
}

export type FailurePoint = 'resolve' | 'followup' | 'flush';

/** A message a fake Session holds. */
export interface FakeMessage {
  readonly messageId: string;
  readonly text: string;
  readonly idempotencyKeys: readonly string[];
}

export interface FakeSessions extends SessionController {
  /** Flushed messages of a Session, in order. */
  messages(sessionId: string): FakeMessage[];
  /** Makes the next `what` for the Session fail (calls stack: two calls fail the next two). */
  failNext(sessionId: string, what: FailurePoint): void;
  /** How many times the Session was resolved. */
  resolveCount(sessionId: string): number;
}

/**
 * In-memory Sessions: `followup` appends to an inbox, `flush` (on a microtask) moves the inbox to
 * the flushed messages. A failed flush drops the unflushed inbox, as a crash would.
 */
export function createFakeSessions(): FakeSessions {
  const flushed = new Map<string, FakeMessage[]>();
  const failures = new Map<string, number>();
  const resolves = new Map<string, number>();
  let messageSeq = 0;

  const takeFailure = (sessionId: string, what: FailurePoint): boolean => {
    const key = `${what}\u0000${sessionId}`;
    const count = failures.get(key) ?? 0;
    if (count === 0) return false;
    failures.set(key, count - 1);
    return true;
  };

  const agentFor = (sessionId: string): ScheduleAgent => {
    let inbox: FakeMessage[] = [];
    return {
      followup(message: FollowupMessage, meta?: FollowupMeta) {
        if (takeFailure(sessionId, 'followup')) throw new Error(`fake Session ${sessionId}: followup failed`);
        const messageId = `msg-${++messageSeq}`;
        inbox.push({ messageId, text: message.text, idempotencyKeys: [...(meta?.idempotencyKeys ?? [])] });
        return { messageId };
      },
      async flush() {
        await Promise.resolve();
        const batch = inbox;
        inbox = [];
        if (takeFailure(sessionId, 'flush')) throw new Error(`fake Session ${sessionId}: flush failed`);
        const list = flushed.get(sessionId) ?? [];
        list.push(...batch);
        flushed.set(sessionId, list);
      },
    };
  };

  return {
    async resolveAgent(sessionId) {
      resolves.set(sessionId, (resolves.get(sessionId) ?? 0) + 1);
      await Promise.resolve();
      if (takeFailure(sessionId, 'resolve')) throw new Error(`fake Session ${sessionId}: resolve failed`);
      return agentFor(sessionId);
    },
    messages: (sessionId) => [...(flushed.get(sessionId) ?? [])],
    failNext(sessionId, what) {
      const key = `${what}\u0000${sessionId}`;
      failures.set(key, (failures.get(key) ?? 0) + 1);
    },
    resolveCount: (sessionId) => resolves.get(sessionId) ?? 0,
  };
}
