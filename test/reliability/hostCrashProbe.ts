// The crash trials' probes: wrappers around the Session controller and the storage of the Host
// stack that announce each step of a delivery and of a write on stdout — `followup` (with the
// idempotency keys), `flushing`, `flushed`, `committing`, `committed` — before going on. One
// step, chosen by the parent (the n-th `flushed`, say), can be held: the child stops there until
// the parent's SIGKILL arrives, so a kill lands exactly between a Session flush and the row write,
// or after a write became durable but before the service heard of it. The other steps are "inside"
// points: the child goes straight on, and the parent kills it as soon as it reads the line, while
// the transcript append or the journal write is under way.
import { writeSync } from 'node:fs';
import type { CommitBatch, ScheduleAgent, ScheduleStorage, SessionController } from '../../src/ports.ts';

/** The steps the probes announce. */
export const PROBE_POINTS = ['flushing', 'flushed', 'committing', 'committed'] as const;
/** One of the announced steps. */
export type ProbePoint = (typeof PROBE_POINTS)[number];

/** Steps at which the child waits for its kill; at the others it goes on at once. */
export const HELD_POINTS: ReadonlySet<ProbePoint> = new Set<ProbePoint>(['flushed', 'committed']);

/** Where the child holds: the `n`-th announcement of `point` (1-based). */
export interface Hold {
  readonly point: ProbePoint;
  readonly n: number;
}

/** Longest hold; the parent's kill comes within milliseconds. */
const HOLD_MS = 10_000;

/**
 * Writes one JSON line to stdout synchronously, so it is out before the next step runs. A pipe
 * the parent has not drained yet answers EAGAIN (stdout is non-blocking): the rest is written
 * again until it is all out.
 */
export const emit = (event: Record<string, unknown>): void => {
  const bytes = Buffer.from(`${JSON.stringify(event)}\n`);
  for (let written = 0; written < bytes.length; ) {
    try {
      written += writeSync(1, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
};

/** Counts announcements and holds at the chosen one. */
export function createProbe(hold: Hold | null): (point: ProbePoint, data: Record<string, unknown>) => Promise<void> {
  const counts = new Map<ProbePoint, number>();
  return async (point, data) => {
    const n = (counts.get(point) ?? 0) + 1;
    counts.set(point, n);
    emit({ e: point, n, ...data });
    if (hold !== null && hold.point === point && hold.n === n && HELD_POINTS.has(point)) {
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    }
  };
}

/** A probe as {@link createProbe} makes it. */
export type Probe = ReturnType<typeof createProbe>;

/** Told of every message appended: its Session, idempotency keys and message id. */
export type FollowupListener = (sessionId: string, keys: string[], messageId: string) => void;

/** The Session controller, announcing every append (to `onFollowup`) and every flush (to `probe`). */
export function probeSessions(inner: SessionController, probe: Probe, onFollowup: FollowupListener): SessionController {
  return {
    async resolveAgent(sessionId) {
      const agent = await inner.resolveAgent(sessionId);
      let pending: string[] = [];
      const wrapped: ScheduleAgent = {
        followup(message, meta) {
          const keys = [...(meta?.idempotencyKeys ?? [])];
          const result = agent.followup(message, meta);
          onFollowup(sessionId, keys, result.messageId);
          pending.push(...keys);
          return result;
        },
        async flush() {
          const keys = pending;
          pending = [];
          await probe('flushing', { sessionId, keys });
          await agent.flush();
          await probe('flushed', { sessionId, keys });
        },
      };
      return wrapped;
    },
  };
}

const describeBatch = (batch: CommitBatch) => ({
  puts: batch.puts.map((row) => `${row.record.id}:${row.status}:${row.lastDelivery?.scheduledAt ?? '-'}`),
  deletes: batch.deletes,
});

/** The storage, announcing every commit before it starts and once it is durable. */
export function probeStorage(inner: ScheduleStorage, probe: Probe): ScheduleStorage {
  return {
    open: () => inner.open(),
    async commit(batch) {
      await probe('committing', describeBatch(batch));
      await inner.commit(batch);
      await probe('committed', {});
    },
    close: () => inner.close(),
  };
}
