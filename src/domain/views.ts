// The model-facing view of a task (docs/management.md): the record's fields, its state relative to now
// (`scheduled` while the target is in the future, `overdue` once it is due but not yet
// delivered, `paused` while it is paused), the delivery mode, which is always the Host, and —
// while the latest delivery attempt has failed — the failure status.
import { instantMs } from './instant.ts';
import type { DeliveryFailure, ScheduleRecord, ScheduleView, TaskRow } from './types.ts';

/** The view of a record at `nowMs`. */
export function toView(record: ScheduleRecord, nowMs: number): ScheduleView {
  const state = instantMs(record.scheduledAt) > nowMs ? 'scheduled' : 'overdue';
  return { ...record, state, deliveryMode: 'host' };
}

/** The view of a stored active row at `nowMs`, with its pause and its failure status. */
export function taskView(row: TaskRow, nowMs: number, failure?: DeliveryFailure): ScheduleView {
  const view = toView(row.record, nowMs);
  const shown: ScheduleView = row.pausedAt === undefined ? view : { ...view, state: 'paused', pausedAt: row.pausedAt };
  return failure === undefined ? shown : { ...shown, failure };
}
