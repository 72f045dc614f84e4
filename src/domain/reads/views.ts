// The model-facing view of a task (docs/management.md): the record's fields, its state relative to now
// (`scheduled` while the target is in the future, `overdue` once it is due but not yet
// delivered, `paused` while it is paused, with the pause's note when it has one), the delivery
// mode, which is always the Host, and — while the latest delivery attempt has failed — the
// failure status.

import type { DeliveryFailure, ScheduleRecord, ScheduleView, TaskRow } from '../tasks/types.ts';
import { instantMs } from '../time/instant.ts';

/** The view of a record at `nowMs`. */
export function toView(record: ScheduleRecord, nowMs: number): ScheduleView {
  const state = instantMs(record.scheduledAt) > nowMs ? 'scheduled' : 'overdue';
  return { ...record, state, deliveryMode: 'host' };
}

/**
 * The view of a stored active row at `nowMs`, with its pause (and its note) and its failure
 * status: `failure` when given (the task actor's), else the one stored with the row.
 */
export function taskView(row: TaskRow, nowMs: number, failure: DeliveryFailure | undefined = row.failure): ScheduleView {
  const view = toView(row.record, nowMs);
  const paused: ScheduleView = row.pausedAt === undefined ? view : { ...view, state: 'paused', pausedAt: row.pausedAt };
  const shown: ScheduleView = row.pauseNote === undefined ? paused : { ...paused, pauseNote: row.pauseNote };
  return failure === undefined ? shown : { ...shown, failure };
}
