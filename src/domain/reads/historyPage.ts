// One page of a task's saved delivery history for the remote `history` call (docs/management.md): newest
// first in append order (never re-sorted by time), an exclusive message-id cursor `before`, and
// `nextBefore` only while older saved records remain. The row lookup and Session check belong
// to the caller; this validates the paging arguments and reads the row.
import { describeValue } from '../args/argShape.ts';
import { ScheduleError } from '../errors.ts';
import { historyOfLegacyRow, type RetentionLimits } from '../tasks/retention.ts';
import type { DeliveryHistory, DeliveryReceipt } from '../tasks/types.ts';

/** Largest page the remote `history` call returns. */
export const MAX_HISTORY_LIMIT = 100;

/** The remote `history` response (docs/api.md). */
export interface HistoryPage {
  /** Newest first. */
  readonly records: readonly DeliveryReceipt[];
  /** The oldest returned message id; present only when older saved records remain. */
  readonly nextBefore?: string;
  readonly earlierRecordsUnavailable: boolean;
  /** True / false, or absent when pruning is unconfirmed. */
  readonly earlierRecordsPruned?: boolean;
  readonly retention: { readonly days: number; readonly records: number };
}

/** The paging arguments of the remote `history` call, unvalidated. */
export interface HistoryPageRequest {
  readonly limit: unknown;
  readonly before?: unknown;
}

/**
 * Reads one page of a row's saved history. A row without saved history exposes only its
 * `lastDelivery` (see `historyOfLegacyRow`).
 *
 * @throws ScheduleError `invalid_rule` when `limit` is not an integer 1–100;
 *   `delivery_cursor_not_found` when `before` is not a saved message id of this task.
 */
export function historyPage(
  row: { readonly lastDelivery?: DeliveryReceipt; readonly deliveryHistory?: DeliveryHistory },
  request: HistoryPageRequest,
  retention: RetentionLimits,
): HistoryPage {
  const { limit, before } = request;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    throw new ScheduleError(
      'invalid_rule',
      `limit ${describeValue(limit)} is not accepted: use an integer from 1 to ${MAX_HISTORY_LIMIT}.`,
    );
  }
  const history = row.deliveryHistory ?? historyOfLegacyRow(row.lastDelivery);
  const records = history.records;
  let end = records.length;
  if (before !== undefined) {
    const index = typeof before === 'string' ? records.findIndex((r) => r.messageId === before) : -1;
    if (index < 0) {
      throw new ScheduleError(
        'delivery_cursor_not_found',
        `before ${describeValue(before)} is not the message id of a saved delivery of this task; pass a nextBefore value from an earlier page.`,
      );
    }
    end = index;
  }
  const start = Math.max(0, end - limit);
  const page = records.slice(start, end).reverse();
  const oldest = page.at(-1);
  const base: HistoryPage = {
    records: page,
    ...(start > 0 && oldest !== undefined ? { nextBefore: oldest.messageId } : {}),
    earlierRecordsUnavailable: history.earlierRecordsUnavailable,
    retention: { days: retention.days, records: retention.records },
  };
  return history.earlierRecordsPruned === undefined ? base : { ...base, earlierRecordsPruned: history.earlierRecordsPruned };
}
