// The delivery burst's own work, without the actor system: every Session's due rows planned into
// messages and delivered to fake Sessions by the delivery attempt (`deliverBatch`, as the attempt
// runner calls it), each delivery applied to its row (`applyDelivery`), and the rows committed to
// memory storage, checked as every commit is, in batches of `sessionsPerCommit` Sessions. This is
// what the burst must do whatever carries its events; the burst's time above it and above its
// events' own cost is what routing through actors, mailboxes and promises adds.

import type { DeliveryOutcome } from '../../machines/events.ts';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { applyDelivery } from '../../src/domain/tasks/deliveryRow.ts';
import { DEFAULT_RETENTION } from '../../src/domain/tasks/retention.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { deliverBatch } from '../../src/runtime/deliveryAttempt.ts';
import { Limiter } from '../../src/runtime/limiter.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';

export interface WorkOptions {
  /** The domain document the burst starts from (its rows are all due at `at`). */
  readonly document: unknown;
  /** The instant the rows are due. */
  readonly at: string;
  /** Sessions whose deliveries share one commit (as many as the measured burst put in each of its commits). */
  readonly sessionsPerCommit: number;
  /** The concurrent `resolveAgent` calls allowed, as the service's configuration allows them. */
  readonly restores: number;
}

/** One run of the burst's work, in ms; throws when not every row was delivered and committed. */
export async function measureWork(options: WorkOptions): Promise<number> {
  const storage = new MemoryStorage(options.document);
  const { tasks } = await storage.open();
  const clock = createManualClock(options.at);
  const sessions = createFakeSessions();
  const deps = { sessions, clock, logger: { warn() {}, error() {} }, restores: new Limiter(options.restores) };
  const bySession = new Map<string, TaskRow[]>();
  for (const row of tasks) {
    const rows = bySession.get(row.sessionId);
    if (rows === undefined) bySession.set(row.sessionId, [row]);
    else rows.push(row);
  }
  const byId = new Map(tasks.map((row) => [row.record.id, row]));
  const t0 = performance.now();
  let waiting: DeliveryOutcome[] = [];
  let committed = 0;
  const commitWaiting = async (): Promise<void> => {
    const outcomes = waiting;
    waiting = [];
    const puts: TaskRow[] = [];
    for (const outcome of outcomes) {
      for (const reminder of outcome.delivered) {
        puts.push(applyDelivery(byId.get(reminder.id) as TaskRow, reminder, outcome.now, DEFAULT_RETENTION));
      }
    }
    await storage.commit({ puts, deletes: [] });
    committed += puts.length;
  };
  const commits: Promise<void>[] = [];
  await Promise.all(
    [...bySession].map(async ([sessionId, rows]) => {
      const outcome = await deliverBatch(deps, { sessionId, rows });
      waiting.push(outcome);
      if (waiting.length >= options.sessionsPerCommit) commits.push(commitWaiting());
    }),
  );
  if (waiting.length > 0) commits.push(commitWaiting());
  await Promise.all(commits);
  const ms = performance.now() - t0;
  if (committed !== tasks.length) throw new Error(`the work committed ${committed} of ${tasks.length} deliveries`);
  return ms;
}
