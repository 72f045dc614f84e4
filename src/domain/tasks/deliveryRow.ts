// The row a committed delivery writes (docs/delivery.md): `lastDelivery` and the appended receipt (under
// the retention limits), then a one-shot ends and a recurring task advances to its first target
// strictly after the attempt's `now` — or ends when it has none. When the record's timing was
// edited while the delivery was in flight and its new target is still ahead, the edit wins: the
// receipt is recorded and the new target kept.
import { formatInstant, instantMs } from '../time/instant.ts';
import { countOccurrences, nextTargetAfter } from '../time/recurrence.ts';
import { ruleFromRecord, sameRecordRule } from './records.ts';
import { appendReceipt, type RetentionLimits } from './retention.ts';
import { type DeliveryReceipt, isRecurringKind, type ScheduleRecord, type TaskRow } from './types.ts';

/** One reminder the Session acknowledged. */
export interface AcknowledgedReminder {
  /** The occurrence delivered (epoch ms). */
  readonly occurrence: number;
  readonly messageId: string;
  /** When the flush succeeded (epoch ms). */
  readonly deliveredAt: number;
  readonly prompt: string;
  /** The record when the attempt started. */
  readonly startedRecord: ScheduleRecord;
  /** `"manual"` for a run-now delivery. */
  readonly trigger?: 'manual';
}

/** True when the timing part of two records is the same (title and prompt may differ). */
export const sameTiming = (a: ScheduleRecord, b: ScheduleRecord): boolean => a.scheduledAt === b.scheduledAt && sameRecordRule(a, b);

/**
 * The receipt of `reminder`: a run-now delivery says so; a recurring delivery that coalesced
 * occurrences of the rule it started with says how many and from when (docs/delivery.md).
 */
export function receiptOf(reminder: AcknowledgedReminder): DeliveryReceipt {
  const receipt: DeliveryReceipt = {
    scheduledAt: formatInstant(reminder.occurrence),
    deliveredAt: formatInstant(reminder.deliveredAt),
    messageId: reminder.messageId,
    prompt: reminder.prompt,
  };
  if (reminder.trigger === 'manual') return { ...receipt, trigger: 'manual' };
  const started = reminder.startedRecord;
  if (!isRecurringKind(started.kind)) return receipt;
  const from = instantMs(started.scheduledAt);
  const missed = countOccurrences(ruleFromRecord(started), from, reminder.occurrence);
  return missed === 0 ? receipt : { ...receipt, missed, firstMissed: started.scheduledAt };
}

/**
 * The row after a delivery of `reminder`, chosen at `now`, was acknowledged. A timing edit that
 * landed while the delivery was in flight wins when its target is still ahead of `now`; a target
 * at or before `now` is covered by this delivery like any other — the edited one-shot ends, the
 * edited rule advances past `now` — so no occurrence is delivered twice. A run-now delivery of a
 * recurring task leaves its target alone; one of a one-shot ends it, as if it had fallen due. The
 * run-now request the delivery answered (one made at or before `now`) is removed; an ended row
 * keeps neither a pause nor a request. The failure status is dropped: the delivery is committed.
 * The row is built in one object.
 */
export function applyDelivery(row: TaskRow, reminder: AcknowledgedReminder, now: number, retention: RetentionLimits): TaskRow {
  const lastDelivery = receiptOf(reminder);
  const recurring = isRecurringKind(row.record.kind);
  let record = row.record;
  let ended = false;
  if (reminder.trigger === 'manual') ended = !recurring;
  else {
    const committed = instantMs(row.record.scheduledAt);
    // An edit that moved the target ahead of `now` while the delivery was in flight keeps it.
    if (committed <= now || sameTiming(row.record, reminder.startedRecord)) {
      const next = recurring ? nextTargetAfter(ruleFromRecord(row.record), committed, now) : null;
      if (next === null) ended = true;
      else record = { ...row.record, scheduledAt: formatInstant(next) };
    }
  }
  const delivered: { -readonly [K in keyof TaskRow]: TaskRow[K] } = {
    sessionId: row.sessionId,
    status: ended ? 'inactive' : row.status,
    record,
    lastDelivery,
    deliveryHistory: appendReceipt(row.deliveryHistory, lastDelivery, retention, row.lastDelivery),
  };
  if (ended) return delivered;
  if (row.pausedAt !== undefined) delivered.pausedAt = row.pausedAt;
  if (row.pauseNote !== undefined) delivered.pauseNote = row.pauseNote;
  if (row.triggeredAt !== undefined && instantMs(row.triggeredAt) > now) delivered.triggeredAt = row.triggeredAt;
  return delivered;
}
