// Delivery deltas: the journal's compact form of a delivery commit. When a row's new version
// differs from the stored one only by receipts appended to its saved history (the oldest ones
// pruned), a new `lastDelivery` (the last appended receipt), a new target, status or prune flag,
// the journal records just that:
//
//   {"id":"sch_3","after":"msg-41","pruned":1,"receipts":[{…,"promptRef":"record"}],"scheduledAt":"…"}
//
// `after` is the message id of the base row's `lastDelivery` (absent when it has none) and guards
// against replaying a delta onto another version of the row; receipts refer to their prompt as in
// a stored row (`promptRef`), against the resulting record and the receipt before each. Applying a
// delta checks everything the row decoder would for the receipts it adds. A delta never changes a
// row's `pausedAt`, `pauseNote` or `triggeredAt`: the row keeps the base's, and a delivery that
// sets or clears one (a run-now delivery clears `triggeredAt`) is journalled as a whole row
// instead. A delta clears the base's failure status, as the delivery it records does; a row that
// carries one after the delivery is journalled whole.
import { isValidId } from '../args/fields.ts';
import { sameRecordRule } from '../tasks/records.ts';
import type { DeliveryHistory, DeliveryReceipt, ScheduleRecord, TaskRow, TaskStatus } from '../tasks/types.ts';
import { checkedReceipt, encodeReceipt, MAX_MESSAGE_ID_LENGTH, readStoredReceipt, resolveStoredReceipt, sameReceipt } from './receipt.ts';
import { readInstant, readInstantMember } from './record.ts';
import { corrupt, describe, isBoundedString, isSafeIntegerAtLeast, prefixed, readObject, type Where } from './strict.ts';

/** One delivery commit of one task, relative to the row the storage held before it. */
export interface DeliveryDelta {
  readonly id: string;
  /** The message id of the base row's `lastDelivery`; absent when the base row has none. */
  readonly after?: string;
  /** How many of the base row's oldest saved receipts were pruned. */
  readonly pruned: number;
  /** The appended receipts, oldest first, in stored form (prompts by reference); the last is the new `lastDelivery`. */
  readonly receipts: readonly Readonly<Record<string, unknown>>[];
  /** The record's new target, when it moved. */
  readonly scheduledAt?: string;
  /** The row's new status, when it changed. */
  readonly status?: TaskStatus;
  /** The history's new `earlierRecordsPruned`, when it changed. */
  readonly earlierRecordsPruned?: boolean;
}

const REQUIRED = ['id', 'pruned', 'receipts'];
const OPTIONAL = ['after', 'scheduledAt', 'status', 'earlierRecordsPruned'];

/** True when two records differ at most in their target: the same members, and the same rule (an `at` rule is its target). */
function sameRecordButTarget(a: ScheduleRecord, b: ScheduleRecord): boolean {
  if (a === b) return true;
  if (a.kind !== b.kind || a.id !== b.id || a.title !== b.title || a.prompt !== b.prompt) return false;
  return a.kind === 'at' || sameRecordRule(a, b);
}

/** How a row's saved history grew by a delivery: the receipts kept from the base row, and how many of its oldest were pruned. */
interface Appended {
  /** `next`'s receipts before this index are the base row's kept ones; the rest were appended. */
  readonly kept: number;
  readonly pruned: number;
}

/**
 * How `next`'s saved history appends to `base`'s, when `next` is a delivery on top of `base`:
 * the same Session, record (but its target), pause and run-now request, and a history that kept
 * a suffix of base's receipts, appended at least one, and ends with `next`'s `lastDelivery`.
 * Undefined for any other pair.
 */
function appendedHistory(base: TaskRow, next: TaskRow): Appended | undefined {
  const before = base.deliveryHistory;
  const after = next.deliveryHistory;
  const latest = next.lastDelivery;
  if (before === undefined || after === undefined || latest === undefined) return undefined;
  if (base.sessionId !== next.sessionId || before.earlierRecordsUnavailable !== after.earlierRecordsUnavailable) return undefined;
  if (base.pausedAt !== next.pausedAt || base.pauseNote !== next.pauseNote || base.triggeredAt !== next.triggeredAt) return undefined;
  if (next.failure !== undefined) return undefined;
  if (after.earlierRecordsPruned === undefined && before.earlierRecordsPruned !== undefined) return undefined;
  if (!sameRecordButTarget(base.record, next.record)) return undefined;
  const old = before.records;
  const records = after.records;
  // The receipts kept from `base` are a prefix of `next`'s, ending with base's latest saved receipt.
  let kept = 0;
  const last = old.at(-1);
  if (last !== undefined) {
    for (let i = records.length - 1; i >= 0; i--) {
      if (records[i]?.messageId === last.messageId) {
        kept = i + 1;
        break;
      }
    }
  }
  const pruned = old.length - kept;
  if (pruned < 0) return undefined;
  for (let i = 0; i < kept; i++) {
    const a = records[i];
    const b = old[pruned + i];
    if (a === undefined || b === undefined || (a !== b && !sameReceipt(a, b))) return undefined;
  }
  const newest = records.at(-1);
  if (kept === records.length || newest === undefined || !sameReceipt(newest, latest)) return undefined;
  return { kept, pruned };
}

/**
 * The delta that turns `base` into `next`, or undefined when `next` is not a delivery on top of
 * `base` (another Session, an edited record, a history that was not appended to, no saved history)
 * or changes what a delta does not carry (`pausedAt`, `pauseNote`, `triggeredAt`, a failure status it keeps).
 */
export function deliveryDeltaOf(base: TaskRow, next: TaskRow): DeliveryDelta | undefined {
  const appended = appendedHistory(base, next);
  if (appended === undefined) return undefined;
  const { kept, pruned } = appended;
  const records = (next.deliveryHistory as DeliveryHistory).records;
  let previous: DeliveryReceipt | null = records[kept - 1] ?? null;
  const receipts: Readonly<Record<string, unknown>>[] = [];
  for (let i = kept; i < records.length; i++) {
    const receipt = records[i] as DeliveryReceipt;
    receipts.push(encodeReceipt(receipt, { record: next.record.prompt, previous }));
    previous = receipt;
  }
  const delta: { -readonly [K in keyof DeliveryDelta]: DeliveryDelta[K] } = { id: next.record.id, pruned, receipts };
  if (base.lastDelivery !== undefined) delta.after = base.lastDelivery.messageId;
  if (next.record.scheduledAt !== base.record.scheduledAt) delta.scheduledAt = next.record.scheduledAt;
  if (next.status !== base.status) delta.status = next.status;
  const flag = next.deliveryHistory?.earlierRecordsPruned;
  if (flag !== base.deliveryHistory?.earlierRecordsPruned && flag !== undefined) delta.earlierRecordsPruned = flag;
  return delta;
}

/**
 * The checked copy of `next` when it only records a delivery on top of `base` (a row checked
 * before): the row its delivery delta makes of `base` (`applyDeliveryDelta`), checked as that
 * delta is on replay — each appended receipt, a new target, status and prune flag — without
 * building the delta. The copy shares base's record (unless the target moved) and kept receipts,
 * so it costs what the delivery adds, not the whole saved history. Undefined when `next` is not a
 * delivery on top of `base` (see `deliveryDeltaOf`).
 *
 * @throws ScheduleError `corrupt_schedule_log` naming `where` and the field of `next` at fault.
 */
export function deliveredRowOf(base: TaskRow, next: TaskRow, where: Where): TaskRow | undefined {
  const appended = appendedHistory(base, next);
  if (appended === undefined) return undefined;
  const history = base.deliveryHistory as DeliveryHistory;
  const added = (next.deliveryHistory as DeliveryHistory).records;
  const record =
    next.record.scheduledAt === base.record.scheduledAt
      ? base.record
      : { ...base.record, scheduledAt: readInstant(next.record.scheduledAt, where, 'record.scheduledAt') };
  const status = next.status;
  if (status !== 'active' && status !== 'inactive') corrupt(where, 'status', `must be "active" or "inactive", found ${describe(status)}`);
  const flag = next.deliveryHistory?.earlierRecordsPruned ?? history.earlierRecordsPruned;
  if (flag !== undefined && typeof flag !== 'boolean') {
    corrupt(where, 'deliveryHistory.earlierRecordsPruned', `must be true or false when present, found ${describe(flag)}`);
  }
  return appendDelivery(base, history, where, {
    id: next.record.id,
    pruned: appended.pruned,
    count: added.length - appended.kept,
    receiptsField: 'deliveryHistory.records',
    firstIndex: appended.kept,
    receipt: (index, _previous, field) => checkedReceipt(added[appended.kept + index] as DeliveryReceipt, where, field),
    record,
    status,
    statusField: 'status',
    earlierRecordsPruned: flag,
  });
}

/** What one delivery appends to a stored row, however it arrived: as a journal's delta or as a put. */
interface Appending {
  /** The task's id, for messages. */
  readonly id: string;
  /** How many of the row's oldest saved receipts are pruned. */
  readonly pruned: number;
  /** How many receipts are appended. */
  readonly count: number;
  /** Where the appended receipts are, for messages: `receiptsField[firstIndex + i]`. */
  readonly receiptsField: string;
  readonly firstIndex: number;
  /** The checked receipt appended `index`-th, given the receipt before it in the new history. */
  readonly receipt: (index: number, previous: DeliveryReceipt | null, field: string) => DeliveryReceipt;
  /** The row's record after the delivery (its target may have moved). */
  readonly record: ScheduleRecord;
  readonly status: TaskStatus;
  /** Where the status is, for messages. */
  readonly statusField: string;
  readonly earlierRecordsPruned: boolean | undefined;
}

/**
 * `base` with a delivery appended to its saved `history`: the kept receipts, then the new ones
 * (each with a message id the history does not hold yet), at least one; a row that is paused or
 * awaits a run-now delivery is not ended. The records are built at their final length.
 *
 * @throws ScheduleError `corrupt_schedule_log` naming `where` and the field at fault.
 */
function appendDelivery(base: TaskRow, history: DeliveryHistory, where: Where, change: Appending): TaskRow {
  const saved = history.records;
  const fresh: DeliveryReceipt[] = [];
  let previous: DeliveryReceipt | null = change.pruned < saved.length ? (saved.at(-1) ?? null) : null;
  for (let i = 0; i < change.count; i++) {
    const field = `${change.receiptsField}[${change.firstIndex + i}]`;
    const receipt = change.receipt(i, previous, field);
    // A delivery adds a receipt or two to a history of up to a few hundred: a scan costs less than a set of them.
    const id = receipt.messageId;
    if (fresh.some((r) => r.messageId === id) || saved.some((r, index) => index >= change.pruned && r.messageId === id)) {
      corrupt(where, `${field}.messageId`, `repeats message id ${JSON.stringify(id)} of task ${JSON.stringify(change.id)}`);
    }
    fresh.push(receipt);
    previous = receipt;
  }
  const newest = fresh.at(-1);
  if (newest === undefined) corrupt(where, change.receiptsField, 'must hold at least one receipt');
  const runState = base.pausedAt !== undefined ? 'pausedAt' : base.triggeredAt !== undefined ? 'triggeredAt' : undefined;
  if (change.status === 'inactive' && runState !== undefined) {
    corrupt(
      where,
      change.statusField,
      `ends task ${JSON.stringify(change.id)}, whose row carries ${runState}, which only an active row may; such a change is stored as a whole row`,
    );
  }
  const records = (change.pruned === 0 ? saved : saved.slice(change.pruned)).concat(fresh);
  const unavailable = history.earlierRecordsUnavailable;
  const flag = change.earlierRecordsPruned;
  const row: { -readonly [K in keyof TaskRow]: TaskRow[K] } = { sessionId: base.sessionId, status: change.status, record: change.record };
  if (base.pausedAt !== undefined) row.pausedAt = base.pausedAt;
  if (base.pauseNote !== undefined) row.pauseNote = base.pauseNote;
  if (base.triggeredAt !== undefined) row.triggeredAt = base.triggeredAt;
  row.lastDelivery = newest;
  row.deliveryHistory =
    flag === undefined
      ? { records, earlierRecordsUnavailable: unavailable }
      : { records, earlierRecordsUnavailable: unavailable, earlierRecordsPruned: flag };
  return row;
}

/** The delta as a plain object with its keys in the fixed stored order. */
export function encodeDeliveryDelta(delta: DeliveryDelta): Record<string, unknown> {
  const out: Record<string, unknown> = { id: delta.id };
  if (delta.after !== undefined) out.after = delta.after;
  out.pruned = delta.pruned;
  out.receipts = delta.receipts;
  if (delta.scheduledAt !== undefined) out.scheduledAt = delta.scheduledAt;
  if (delta.status !== undefined) out.status = delta.status;
  if (delta.earlierRecordsPruned !== undefined) out.earlierRecordsPruned = delta.earlierRecordsPruned;
  return out;
}

/** Decodes one stored delta at `field` (e.g. `deliveries[0]`) strictly; its receipts are checked but not yet resolved. */
export function decodeDeliveryDelta(value: unknown, where: Where, field: string): DeliveryDelta {
  const raw = readObject(value, where, field, REQUIRED, OPTIONAL);
  if (!isValidId(raw.id)) corrupt(where, prefixed(field, 'id'), `must be a task id, found ${describe(raw.id)}`);
  if (Object.hasOwn(raw, 'after') && !isBoundedString(raw.after, MAX_MESSAGE_ID_LENGTH)) {
    corrupt(where, prefixed(field, 'after'), `must be a message id when present, found ${describe(raw.after)}`);
  }
  if (!isSafeIntegerAtLeast(raw.pruned, 0))
    corrupt(where, prefixed(field, 'pruned'), `must be a safe integer of at least 0, found ${describe(raw.pruned)}`);
  if (!Array.isArray(raw.receipts) || raw.receipts.length === 0) {
    corrupt(where, prefixed(field, 'receipts'), `must be a non-empty array of receipts, found ${describe(raw.receipts)}`);
  }
  for (const [index, receipt] of (raw.receipts as unknown[]).entries())
    readStoredReceipt(receipt, where, `${prefixed(field, 'receipts')}[${index}]`);
  if (Object.hasOwn(raw, 'scheduledAt')) readInstantMember(raw, 'scheduledAt', where, field);
  if (Object.hasOwn(raw, 'status') && raw.status !== 'active' && raw.status !== 'inactive') {
    corrupt(where, prefixed(field, 'status'), `must be "active" or "inactive" when present, found ${describe(raw.status)}`);
  }
  if (Object.hasOwn(raw, 'earlierRecordsPruned') && typeof raw.earlierRecordsPruned !== 'boolean') {
    corrupt(
      where,
      prefixed(field, 'earlierRecordsPruned'),
      `must be true or false when present, found ${describe(raw.earlierRecordsPruned)}`,
    );
  }
  return raw as unknown as DeliveryDelta;
}

/**
 * The row `delta` makes of `base`, checked like a decoded row: the delta must have been recorded
 * against this row (`after`), prune no more than it holds, add receipts with new message ids and
 * prompt references that resolve, and not end a row that is paused or awaits a run-now delivery.
 *
 * @throws ScheduleError `corrupt_schedule_log` naming `where` and `field`.
 */
export function applyDeliveryDelta(base: TaskRow, delta: DeliveryDelta, where: Where, field: string): TaskRow {
  const history = base.deliveryHistory;
  if (history === undefined)
    corrupt(where, field, `records a delivery of task ${JSON.stringify(delta.id)}, whose row has no saved history to append to`);
  const latest = base.lastDelivery?.messageId;
  if (latest !== delta.after) {
    corrupt(
      where,
      prefixed(field, 'after'),
      `is ${delta.after === undefined ? 'absent' : describe(delta.after)} but task ${JSON.stringify(delta.id)}'s latest receipt is ${latest === undefined ? 'absent' : describe(latest)}: the delta was recorded against another version of the row`,
    );
  }
  if (delta.pruned > history.records.length) {
    corrupt(
      where,
      prefixed(field, 'pruned'),
      `is ${delta.pruned} but task ${JSON.stringify(delta.id)} holds only ${history.records.length} saved receipts`,
    );
  }
  const record: ScheduleRecord = delta.scheduledAt === undefined ? base.record : { ...base.record, scheduledAt: delta.scheduledAt };
  return appendDelivery(base, history, where, {
    id: delta.id,
    pruned: delta.pruned,
    count: delta.receipts.length,
    receiptsField: prefixed(field, 'receipts'),
    firstIndex: 0,
    receipt: (index, previous, receiptField) =>
      resolveStoredReceipt({ ...delta.receipts[index] }, where, receiptField, { record: record.prompt, previous }),
    record,
    status: delta.status ?? base.status,
    statusField: prefixed(field, 'status'),
    earlierRecordsPruned: delta.earlierRecordsPruned ?? history.earlierRecordsPruned,
  });
}
