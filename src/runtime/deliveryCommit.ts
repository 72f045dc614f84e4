// The mailbox slot that records a flushed delivery attempt: one write holding every acknowledged
// task's new row. A task deleted or ended while its message was in flight records nothing (the
// message stays delivered). When the write fails, nothing is recorded and every task of the
// attempt is retried — the Session may see the reminder again (at-least-once).
import type { DeliveryOutcome } from '../../machines/events.ts';
import { applyDelivery } from '../domain/deliveryRow.ts';
import type { RetentionLimits } from '../domain/retention.ts';
import type { TaskRow } from '../domain/types.ts';
import { resolved, type SlotPlan } from './slotPlan.ts';
import type { TaskTable } from './taskTable.ts';

/** True when the row's saved history (or latest receipt) already names this message id. */
const namesMessage = (row: TaskRow, messageId: string): boolean =>
  row.lastDelivery?.messageId === messageId || (row.deliveryHistory?.records.some((r) => r.messageId === messageId) ?? false);

export function planDeliveryCommit(table: TaskTable, sessionId: string, outcome: DeliveryOutcome, retention: RetentionLimits): SlotPlan {
  const puts: TaskRow[] = [];
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
  }
  const ending = new Set(puts.filter((row) => row.status === 'inactive').map((row) => row.record.id));
  const retire = table.activeRows(sessionId).every((row) => ending.has(row.record.id));
  const settle = (committed: readonly TaskRow[], failedIds: readonly string[], retireSession: boolean) =>
    ({ type: 'settle', sessionId, committed, failedIds, now: outcome.now, retire: retireSession }) as const;
  // Tasks appended under a message id storage cannot keep go back to their actors like failures, and are parked.
  const notRecorded = [...outcome.failedIds, ...outcome.unrecordableIds, ...reused];
  const parkIds = [...outcome.unrecordableIds, ...reused];
  if (puts.length === 0) {
    return { reply: resolved(null), effects: [settle([], notRecorded, retire)], failedIds: outcome.failedIds, parkIds, errors };
  }
  return {
    reply: resolved(null),
    batch: { puts, deletes: [] },
    effects: [settle(puts, notRecorded, retire)],
    changes: [{ sessionId, ids: puts.map((row) => row.record.id) }],
    failedIds: outcome.failedIds,
    parkIds,
    errors,
    onWriteFailure: () => {
      const all = [...outcome.delivered.map((d) => d.id), ...outcome.failedIds];
      return { reply: resolved(null), effects: [settle([], [...all, ...parkIds], false)], failedIds: all, parkIds };
    },
  };
}
