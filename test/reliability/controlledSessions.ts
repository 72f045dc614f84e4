// A Session controller for the reliability checks: it records every flushed message with the
// wall clock at which it was appended, and lets a test make one Session's `resolveAgent` reject
// (a number of times, or until cleared) or hold its flushes open and then let them succeed or
// fail — while every other Session behaves normally.
import type { Clock, FollowupMessage, FollowupMeta, ScheduleAgent, SessionController } from '../../src/ports.ts';

/** A flushed message. */
export interface DeliveredMessage {
  readonly sessionId: string;
  readonly messageId: string;
  readonly text: string;
  readonly keys: readonly string[];
  /** The wall clock when the message was appended. */
  readonly wall: number;
}

interface HeldFlush {
  readonly release: (ok: boolean) => void;
}

export class ControlledSessions implements SessionController {
  /** Every flushed message, in flush order. */
  readonly delivered: DeliveredMessage[] = [];
  private readonly resolveFailures = new Map<string, number>();
  private readonly resolves = new Map<string, number>();
  private readonly holding = new Set<string>();
  private readonly held = new Map<string, HeldFlush[]>();
  /** Sessions that failed (an injected resolve failure or flush failure) and have not flushed since. */
  readonly troubled = new Set<string>();
  private seq = 0;

  constructor(private readonly clock: Clock) {}

  /** Makes the Session's next `times` resolves reject (default: until {@link clear}). */
  failResolve(sessionId: string, times = Number.POSITIVE_INFINITY): void {
    this.resolveFailures.set(sessionId, times);
  }

  /** Holds every later flush of the Session open until {@link releaseFlushes}. */
  holdFlushes(sessionId: string): void {
    this.holding.add(sessionId);
  }

  /** Lets the Session's held flushes finish (successfully or not) and stops holding new ones. */
  releaseFlushes(sessionId: string, ok: boolean): void {
    this.holding.delete(sessionId);
    for (const flush of this.held.get(sessionId)?.splice(0) ?? []) flush.release(ok);
  }

  /** Flushes of the Session waiting to be released. */
  heldFlushes(sessionId: string): number {
    return this.held.get(sessionId)?.length ?? 0;
  }

  /** Ends every injected failure of the Session. */
  clear(sessionId: string): void {
    this.resolveFailures.delete(sessionId);
  }

  resolveCount(sessionId: string): number {
    return this.resolves.get(sessionId) ?? 0;
  }

  /** Flushed messages of one Session. */
  messages(sessionId: string): DeliveredMessage[] {
    return this.delivered.filter((m) => m.sessionId === sessionId);
  }

  /** Distinct idempotency keys a Session received: what a Host that drops redeliveries shows. */
  distinctKeys(sessionId: string): string[] {
    return [...new Set(this.messages(sessionId).flatMap((m) => m.keys))];
  }

  async resolveAgent(sessionId: string): Promise<ScheduleAgent> {
    this.resolves.set(sessionId, this.resolveCount(sessionId) + 1);
    await Promise.resolve();
    const failures = this.resolveFailures.get(sessionId) ?? 0;
    if (failures > 0) {
      this.resolveFailures.set(sessionId, failures - 1);
      this.troubled.add(sessionId);
      throw new Error(`Session ${sessionId} cannot be restored (injected)`);
    }
    let inbox: DeliveredMessage[] = [];
    return {
      followup: (message: FollowupMessage, meta?: FollowupMeta) => {
        const messageId = `msg-${++this.seq}`;
        inbox.push({ sessionId, messageId, text: message.text, keys: [...(meta?.idempotencyKeys ?? [])], wall: this.clock.now() });
        return { messageId };
      },
      flush: async () => {
        const batch = inbox;
        inbox = [];
        if (this.holding.has(sessionId)) {
          const ok = await new Promise<boolean>((release) => {
            const list = this.held.get(sessionId) ?? [];
            list.push({ release });
            this.held.set(sessionId, list);
          });
          if (!ok) {
            this.troubled.add(sessionId);
            throw new Error(`Session ${sessionId} could not persist its inbox (injected)`);
          }
        }
        await Promise.resolve();
        this.delivered.push(...batch);
        this.troubled.delete(sessionId);
      },
    };
  }
}
