// Strict decoding and deterministic encoding of delivery receipts and of a task's saved
// delivery history (SPEC §2, §6): receipts `{scheduledAt, deliveredAt, messageId, prompt?}`,
// history `{records (oldest first), earlierRecordsUnavailable, earlierRecordsPruned?}`, plus the
// cross-checks between them: unique message ids, and the latest saved receipt equal to
// `lastDelivery`.
import { isStoredPrompt } from '../fields.ts';
import type { DeliveryHistory, DeliveryReceipt } from '../types.ts';
import { readInstant } from './record.ts';
import { corrupt, describe, isBoundedString, prefixed, readObject, type Where } from './strict.ts';

/** Longest accepted message id (ids come from the Session and are otherwise opaque). */
export const MAX_MESSAGE_ID_LENGTH = 256;

const RECEIPT_REQUIRED = ['scheduledAt', 'deliveredAt', 'messageId'];
const RECEIPT_OPTIONAL = ['prompt'];
const HISTORY_REQUIRED = ['records', 'earlierRecordsUnavailable'];
const HISTORY_OPTIONAL = ['earlierRecordsPruned'];

/** Decodes one receipt at `field` (e.g. `lastDelivery`, `deliveryHistory.records[3]`), in place. */
export function decodeReceipt(value: unknown, where: Where, field: string): DeliveryReceipt {
  const raw = readObject(value, where, field, RECEIPT_REQUIRED, RECEIPT_OPTIONAL);
  readInstant(raw.scheduledAt, where, prefixed(field, 'scheduledAt'));
  readInstant(raw.deliveredAt, where, prefixed(field, 'deliveredAt'));
  if (!isBoundedString(raw.messageId, MAX_MESSAGE_ID_LENGTH)) {
    corrupt(
      where,
      prefixed(field, 'messageId'),
      `must be a non-empty string of at most ${MAX_MESSAGE_ID_LENGTH} characters, found ${describe(raw.messageId)}`,
    );
  }
  if (Object.hasOwn(raw, 'prompt') && !isStoredPrompt(raw.prompt)) {
    corrupt(where, prefixed(field, 'prompt'), `must be a trimmed, non-blank string, found ${describe(raw.prompt)}`);
  }
  return raw as unknown as DeliveryReceipt;
}

/** Decodes a saved history (in place) and checks it against the row's `lastDelivery`. */
export function decodeHistory(
  value: unknown,
  lastDelivery: DeliveryReceipt | undefined,
  where: Where,
  field = 'deliveryHistory',
): DeliveryHistory {
  const raw = readObject(value, where, field, HISTORY_REQUIRED, HISTORY_OPTIONAL);
  const records = raw.records;
  if (!Array.isArray(records)) corrupt(where, prefixed(field, 'records'), `must be an array of receipts, found ${describe(records)}`);
  const seen = new Set<string>();
  for (let index = 0; index < records.length; index++) {
    const receiptField = `${prefixed(field, 'records')}[${index}]`;
    const receipt = decodeReceipt(records[index], where, receiptField);
    if (seen.has(receipt.messageId)) corrupt(where, `${receiptField}.messageId`, `repeats message id ${JSON.stringify(receipt.messageId)}`);
    seen.add(receipt.messageId);
  }
  if (typeof raw.earlierRecordsUnavailable !== 'boolean') {
    corrupt(where, prefixed(field, 'earlierRecordsUnavailable'), `must be true or false, found ${describe(raw.earlierRecordsUnavailable)}`);
  }
  if (Object.hasOwn(raw, 'earlierRecordsPruned') && typeof raw.earlierRecordsPruned !== 'boolean') {
    corrupt(
      where,
      prefixed(field, 'earlierRecordsPruned'),
      `must be true or false when present, found ${describe(raw.earlierRecordsPruned)}`,
    );
  }
  const latest: DeliveryReceipt | undefined = records.at(-1);
  if (latest === undefined ? lastDelivery !== undefined : lastDelivery === undefined || !sameReceipt(latest, lastDelivery)) {
    corrupt(
      where,
      prefixed(field, 'records'),
      'must end with the receipt stored as lastDelivery (the latest saved receipt differs from lastDelivery)',
    );
  }
  return raw as unknown as DeliveryHistory;
}

/** True when two receipts hold the same fields and values. */
export const sameReceipt = (a: DeliveryReceipt, b: DeliveryReceipt): boolean =>
  a.scheduledAt === b.scheduledAt && a.deliveredAt === b.deliveredAt && a.messageId === b.messageId && a.prompt === b.prompt;

/** The receipt as a plain object with its keys in the fixed stored order. */
export function encodeReceipt(receipt: DeliveryReceipt): Record<string, unknown> {
  const out: Record<string, unknown> = { scheduledAt: receipt.scheduledAt, deliveredAt: receipt.deliveredAt, messageId: receipt.messageId };
  if (receipt.prompt !== undefined) out.prompt = receipt.prompt;
  return out;
}

/** The history as a plain object with its keys in the fixed stored order. */
export function encodeHistory(history: DeliveryHistory): Record<string, unknown> {
  const out: Record<string, unknown> = {
    records: history.records.map(encodeReceipt),
    earlierRecordsUnavailable: history.earlierRecordsUnavailable,
  };
  if (history.earlierRecordsPruned !== undefined) out.earlierRecordsPruned = history.earlierRecordsPruned;
  return out;
}
