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

export function planDeliveryCommit(table: TaskTable, sessionId: string, outcome: DeliveryOutcome, retention: RetentionLimits): SlotPlan {
  const puts: TaskRow[] = [];
  for (const reminder of outcome.delivered) {
    const row = table.getInSession(sessionId, reminder.id);
    if (row === undefined || row.status !== 'active') continue;
    puts.push(applyDelivery(row, reminder, outcome.now, retention));
  }
  const ending = new Set(puts.filter((row) => row.status === 'inactive').map((row) => row.record.id));
  const retire = table.activeRows(sessionId).every((row) => ending.has(row.record.id));
  const settle = (committed: readonly TaskRow[], failedIds: readonly string[], retireSession: boolean) =>
    ({ type: 'settle', sessionId, committed, failedIds, now: outcome.now, retire: retireSession }) as const;
  // Tasks appended under a message id storage cannot keep go back to their actors like failures, and are parked.
  const notRecorded = [...outcome.failedIds, ...outcome.unrecordableIds];
  const parkIds = outcome.unrecordableIds;
  if (puts.length === 0) {
    return { reply: resolved(null), effects: [settle([], notRecorded, retire)], failedIds: outcome.failedIds, parkIds };
  }
  return {
    reply: resolved(null),
    batch: { puts, deletes: [] },
    effects: [settle(puts, notRecorded, retire)],
    changes: [{ sessionId, ids: puts.map((row) => row.record.id) }],
    failedIds: outcome.failedIds,
    parkIds,
    onWriteFailure: () => {
      const all = [...outcome.delivered.map((d) => d.id), ...outcome.failedIds];
      return { reply: resolved(null), effects: [settle([], [...all, ...parkIds], false)], failedIds: all, parkIds };
    },
  };
}
