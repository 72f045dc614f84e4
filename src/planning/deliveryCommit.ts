// The mailbox slot that records a flushed delivery attempt: one write holding every acknowledged
// task's new row. A task deleted or ended while its message was in flight records nothing (the
// message stays delivered). When the write fails, nothing is recorded: the tasks whose Session
// failed are retried as deliveries, while the reminders the Session acknowledged are kept as
// pending receipts and only their write is retried (the scheduler's pending commits), so the Session does not
// see them again. A retried write records each receipt on the row as it is then — an edit made
// meanwhile is kept, as if it had landed while the delivery was in flight — and advances the task
// past the `now` of the attempt that delivered it.
import type { ActorEffect, DeliveredReminder, DeliveryOutcome } from '../../machines/events.ts';
import { applyDelivery } from '../domain/deliveryRow.ts';
import type { RetentionLimits } from '../domain/retention.ts';
import type { TaskRow } from '../domain/types.ts';
import type { PendingCommit, PendingReceipts } from './pendingReceipts.ts';
import { resolved, type SlotPlan } from './slotPlan.ts';
import type { TaskRows } from './taskRows.ts';

/** True when the row's saved history (or latest receipt) already names this message id. */
const namesMessage = (row: TaskRow, messageId: string): boolean =>
  row.lastDelivery?.messageId === messageId || (row.deliveryHistory?.records.some((r) => r.messageId === messageId) ?? false);

/** What a delivery-commit slot needs besides its outcome. */
export interface DeliveryCommitContext {
  readonly table: TaskRows;
  readonly retention: RetentionLimits;
  readonly pending: PendingReceipts;
  /** Sessions with a delivery attempt in flight. */
  readonly attempting: ReadonlySet<string>;
  /** When the slot runs. */
  readonly now: number;
}

export function planDeliveryCommit(ctx: DeliveryCommitContext, sessionId: string, outcome: DeliveryOutcome): SlotPlan {
  if (ctx.pending.isRetry(outcome)) return planRetriedCommit(ctx, sessionId, outcome);
  const { table, retention } = ctx;
  const puts: TaskRow[] = [];
  const commits: PendingCommit[] = [];
  const reused: string[] = [];
  const errors: Array<{ message: string; data: unknown }> = [];
  for (const reminder of outcome.delivered) {
    const row = table.getInSession(sessionId, reminder.id);
    if (row === undefined || row.status !== 'active') continue;
    if (namesMessage(row, reminder.messageId)) {
      // A task's receipts name distinct messages; a Host answering with one of its earlier ids
      // cannot be recorded. Parked, not retried on a timer: the answer would be the same.
      reused.push(reminder.id);
      errors.push({
        message: `followup() answered with message id ${reminder.messageId}, which already names an earlier delivery of task ${reminder.id}; the reminder cannot be recorded and the task waits for another change or a restart.`,
        data: { sessionId, id: reminder.id, messageId: reminder.messageId },
      });
      continue;
    }
    puts.push(applyDelivery(row, reminder, outcome.now, retention));
    commits.push({ sessionId, reminder, attemptNow: outcome.now });
  }
  const ending = new Set(puts.filter((row) => row.status === 'inactive').map((row) => row.record.id));
  const retire = table.activeRows(sessionId).every((row) => ending.has(row.record.id));
  const settle = (committed: readonly TaskRow[], failedIds: readonly string[], retireSession: boolean) =>
    ({ type: 'settle', sessionId, committed, failedIds, now: outcome.now, retire: retireSession }) as const;
  // Tasks appended under a message id storage cannot keep go back to their actors like failures, and are parked.
  const notRecorded = [...outcome.failedIds, ...outcome.unrecordableIds, ...reused];
  const parkIds = [...outcome.unrecordableIds, ...reused];
  if (puts.length === 0) {
    return {
      reply: resolved(null),
      effects: [settle([], notRecorded, retire)],
      failedIds: outcome.failedIds,
      failureCauses: outcome.causes ?? [],
      parkIds,
      errors,
    };
  }
  return {
    reply: resolved(null),
    batch: { puts, deletes: [] },
    effects: [settle(puts, notRecorded, retire)],
    changes: [{ sessionId, ids: puts.map((row) => row.record.id) }],
    failedIds: outcome.failedIds,
    failureCauses: outcome.causes ?? [],
    parkIds,
    errors,
    commits,
    // The attempt ends for every task; the acknowledged ones keep their receipts pending (not redelivered).
    onWriteFailure: () => ({
      reply: resolved(null),
      effects: [settle([], [...commits.map((c) => c.reminder.id), ...notRecorded], false)],
      failedIds: outcome.failedIds,
      failureCauses: outcome.causes ?? [],
      parkIds,
      commits,
    }),
  };
}

/**
 * A retried write of pending receipts. No attempt is in flight for them (their actors settled
 * when the first write failed), so the committed rows reach their actors as ordinary changes: an
 * active row as a put, an ended one removed (its Session retired when nothing else is active).
 */
function planRetriedCommit(ctx: DeliveryCommitContext, sessionId: string, outcome: DeliveryOutcome): SlotPlan {
  const { table, retention, pending } = ctx;
  const puts: TaskRow[] = [];
  const commits: PendingCommit[] = [];
  const dropped: string[] = [];
  for (const reminder of outcome.delivered) {
    const commit = pending.get(reminder.id);
    const row = table.getInSession(sessionId, reminder.id);
    if (commit === undefined || !sameReminder(commit.reminder, reminder) || row === undefined || row.status !== 'active') {
      dropped.push(reminder.id);
      continue;
    }
    if (namesMessage(row, reminder.messageId)) {
      dropped.push(reminder.id); // already recorded
      continue;
    }
    puts.push(applyDelivery(row, reminder, commit.attemptNow, retention));
    commits.push(commit);
  }
  if (puts.length === 0) return { reply: resolved(null), dropped };
  const ended = puts.filter((row) => row.status === 'inactive').map((row) => row.record.id);
  const effects: ActorEffect[] = puts.filter((row) => row.status === 'active').map((row) => ({ type: 'put', row, now: ctx.now }));
  if (ended.length > 0) {
    const endedSet = new Set(ended);
    const remaining = table.activeRows(sessionId).filter((row) => !endedSet.has(row.record.id)).length;
    effects.push({ type: 'remove', sessionId, ids: ended, retire: remaining === 0 && !ctx.attempting.has(sessionId) });
  }
  return {
    reply: resolved(null),
    batch: { puts, deletes: [] },
    effects,
    changes: [{ sessionId, ids: puts.map((row) => row.record.id) }],
    commits,
    dropped,
    onWriteFailure: () => ({ reply: resolved(null), effects: [], commits }),
  };
}

const sameReminder = (a: DeliveredReminder, b: DeliveredReminder): boolean =>
  a.id === b.id && a.messageId === b.messageId && a.occurrence === b.occurrence;
