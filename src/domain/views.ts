// The model-facing view of a task (docs/management.md): the record's fields, its state relative to now
// (`scheduled` while the target is in the future, `overdue` once it is due but not yet
// delivered), and the delivery mode, which is always the Host.
import { instantMs } from './instant.ts';
import type { ScheduleRecord, ScheduleView } from './types.ts';

/** The view of a record at `nowMs`. */
export function toView(record: ScheduleRecord, nowMs: number): ScheduleView {
  const state = instantMs(record.scheduledAt) > nowMs ? 'scheduled' : 'overdue';
  return { ...record, state, deliveryMode: 'host' };
}
