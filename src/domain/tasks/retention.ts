// Saved delivery history (docs/management.md): appending a receipt under the Host's retention limits, and
// reading one page of it for the remote `history` call. Both are pure. Appends prune by age —
// receipts whose `deliveredAt` lies more than `days` before the appended receipt's — and by count
// (the newest `records`); the appended receipt always survives, and a prune sets
// `earlierRecordsPruned: true` for good. Reads never prune.
import { DAY_MS, formatInstant, instantMs, inTargetRange } from '../time/instant.ts';
import type { DeliveryHistory, DeliveryReceipt } from './types.ts';

/** The Host's retention limits: `deliveryHistoryDays` and `deliveryHistoryRecords` (docs/api.md). */
export interface RetentionLimits {
  /** Receipts delivered more than this many days before the newest one are pruned (default 30). */
  readonly days: number;
  /** At most this many newest receipts are kept (default 200; at least 1 is always kept). */
  readonly records: number;
}

/** docs/management.md defaults: 30 days, 200 records. */
export const DEFAULT_RETENTION: RetentionLimits = { days: 30, records: 200 };

/** The history of a new task: nothing saved, nothing missing, nothing pruned. */
export const emptyHistory = (): DeliveryHistory => ({ records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false });

/**
 * The history a row without saved history is read as: its `lastDelivery` alone (without a prompt
 * snapshot) and `earlierRecordsUnavailable: true` when it has one; otherwise empty with the flag
 * false. Pruning is unconfirmed (the flag is absent).
 */
export function historyOfLegacyRow(lastDelivery: DeliveryReceipt | undefined): DeliveryHistory {
  if (lastDelivery === undefined) return { records: [], earlierRecordsUnavailable: false };
  const { scheduledAt, deliveredAt, messageId } = lastDelivery;
  return { records: [{ scheduledAt, deliveredAt, messageId }], earlierRecordsUnavailable: true };
}

/**
 * Appends `receipt` to a saved history and prunes it under `limits`. A row without saved history
 * (`history` undefined) starts from {@link historyOfLegacyRow} of its `lastDelivery`, so that
 * receipt is kept and the "earlier records unavailable" flag stays true.
 */
export function appendReceipt(
  history: DeliveryHistory | undefined,
  receipt: DeliveryReceipt,
  limits: RetentionLimits,
  lastDelivery?: DeliveryReceipt,
): DeliveryHistory {
  const base = history ?? historyOfLegacyRow(lastDelivery);
  const saved = base.records;
  const keep = Math.max(1, Math.floor(limits.records)) - 1;
  let kept: readonly DeliveryReceipt[] = saved;
  if (saved.length > 0) {
    const cutoffMs = instantMs(receipt.deliveredAt) - limits.days * DAY_MS;
    // Canonical instants of one fixed width compare as text in time order, so a cutoff in range is
    // compared as text instead of parsing every saved receipt's time.
    const cutoff = inTargetRange(cutoffMs) ? formatInstant(cutoffMs) : undefined;
    const isYoung =
      cutoff === undefined
        ? (r: DeliveryReceipt): boolean => instantMs(r.deliveredAt) >= cutoffMs
        : (r: DeliveryReceipt): boolean => r.deliveredAt >= cutoff;
    // Most appends prune nothing by age: the saved receipts are then kept as they are.
    const young = saved.every(isYoung) ? saved : saved.filter(isYoung);
    kept = keep === 0 ? [] : young.length > keep ? young.slice(-keep) : young;
  }
  const records = kept.length === 0 ? [receipt] : [...kept, receipt];
  const flag = kept.length < saved.length ? true : base.earlierRecordsPruned;
  return flag === undefined
    ? { records, earlierRecordsUnavailable: base.earlierRecordsUnavailable }
    : { records, earlierRecordsUnavailable: base.earlierRecordsUnavailable, earlierRecordsPruned: flag };
}

/**
 * The row fields a committed delivery writes: `lastDelivery` set to the receipt and the receipt
 * appended to the saved history under `limits`.
 */
export function withDelivery<Row extends { readonly lastDelivery?: DeliveryReceipt; readonly deliveryHistory?: DeliveryHistory }>(
  row: Row,
  receipt: DeliveryReceipt,
  limits: RetentionLimits,
): Row & { lastDelivery: DeliveryReceipt; deliveryHistory: DeliveryHistory } {
  return { ...row, lastDelivery: receipt, deliveryHistory: appendReceipt(row.deliveryHistory, receipt, limits, row.lastDelivery) };
}
