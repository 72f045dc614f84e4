// Strict decoding and deterministic encoding of delivery receipts and of a task's saved
// delivery history (docs/tasks.md, docs/storage.md): receipts `{scheduledAt, deliveredAt, messageId,
// prompt?, trigger?, missed?, firstMissed?}`, history `{records (oldest first),
// earlierRecordsUnavailable, earlierRecordsPruned?}`, plus the cross-checks between them: unique
// message ids, and the latest saved receipt equal to `lastDelivery`. Within a receipt, `trigger` is
// `"manual"` (a run-now delivery), `missed` a count of at least 1 of coalesced occurrences and
// `firstMissed` the earliest of them: present exactly when `missed` is, and before `scheduledAt`.
//
// A receipt's prompt snapshot is stored once per change, not once per receipt: instead of
// `prompt`, a stored receipt may carry `promptRef: "record"` (the prompt equals the row's record
// prompt) or, in the saved history, `promptRef: "previous"` (it equals the prompt of the receipt
// just before it). A receipt with neither has no prompt (it was recorded before prompts were
// kept). Decoding resolves every reference, so decoded rows hold the whole prompt per receipt;
// encoding always prefers `record`, then `previous`, then the text itself, so it stays
// deterministic. Documents whose receipts repeat the whole prompt (older versions) still decode.
import { isStoredPrompt } from '../args/fields.ts';
import type { DeliveryHistory, DeliveryReceipt } from '../tasks/types.ts';
import { readInstant, readInstantMember } from './record.ts';
import { corrupt, describe, isBoundedString, isSafeIntegerAtLeast, prefixed, readObject, type Where } from './strict.ts';

/** Longest accepted message id (ids come from the Session and are otherwise opaque). */
export const MAX_MESSAGE_ID_LENGTH = 256;

const RECEIPT_REQUIRED = ['scheduledAt', 'deliveredAt', 'messageId'];
const RECEIPT_OPTIONAL = ['prompt', 'promptRef', 'trigger', 'missed', 'firstMissed'];
const HISTORY_REQUIRED = ['records', 'earlierRecordsUnavailable'];
const HISTORY_OPTIONAL = ['earlierRecordsPruned'];

/** Where a stored receipt takes its prompt from instead of repeating it. */
export type PromptRef = 'record' | 'previous';

/**
 * What a stored receipt's `promptRef` resolves against: the row's record prompt and, where a
 * previous receipt exists (inside a saved history, not the first one), that receipt.
 */
export interface PromptContext {
  readonly record: string;
  /** `null`: no previous receipt may be referred to (the first saved receipt, `lastDelivery`). */
  readonly previous: DeliveryReceipt | null;
}

/**
 * Checks a stored receipt's shape at `field` without resolving its prompt reference: its keys, its
 * instants and message id, a whole prompt's text, and the reference's value.
 */
export function readStoredReceipt(value: unknown, where: Where, field: string): Record<string, unknown> {
  const raw = readObject(value, where, field, RECEIPT_REQUIRED, RECEIPT_OPTIONAL);
  checkReceiptTimesAndText(raw, where, field);
  if (Object.hasOwn(raw, 'promptRef')) {
    const at = prefixed(field, 'promptRef');
    if (Object.hasOwn(raw, 'prompt'))
      corrupt(where, at, 'cannot be stored together with prompt (a receipt keeps its prompt or refers to one)');
    if (raw.promptRef !== 'record' && raw.promptRef !== 'previous') {
      corrupt(where, at, `must be "record" or "previous" when present, found ${describe(raw.promptRef)}`);
    }
  }
  readCoalescing(raw, where, field);
  return raw;
}

/**
 * The checked copy of a receipt held in memory (a row's, not a stored one): its members checked
 * as a stored receipt's are — a receipt's members are the same in both forms but for the prompt's
 * reference, which only a stored one has — and copied; members it does not know are left behind,
 * as encoding it would. A member that is undefined counts as absent.
 */
export function checkedReceipt(receipt: DeliveryReceipt, where: Where, field: string): DeliveryReceipt {
  const raw = receipt as unknown as Record<string, unknown>;
  checkReceiptTimesAndText(raw, where, field);
  readCoalescing(raw, where, field);
  return receiptWith(receipt, receipt.prompt);
}

/** Checks a receipt's instants, its message id and its prompt's text (when it has one). */
function checkReceiptTimesAndText(raw: Record<string, unknown>, where: Where, field: string): void {
  readInstantMember(raw, 'scheduledAt', where, field);
  readInstantMember(raw, 'deliveredAt', where, field);
  if (!isBoundedString(raw.messageId, MAX_MESSAGE_ID_LENGTH)) {
    corrupt(
      where,
      prefixed(field, 'messageId'),
      `must be a non-empty string of at most ${MAX_MESSAGE_ID_LENGTH} characters, found ${describe(raw.messageId)}`,
    );
  }
  if (raw.prompt !== undefined && !isStoredPrompt(raw.prompt)) {
    corrupt(where, prefixed(field, 'prompt'), `must be a trimmed, non-blank string, found ${describe(raw.prompt)}`);
  }
}

/**
 * Checks a receipt's `trigger`, `missed` and `firstMissed` and how they relate to its target (a
 * stored receipt's members are never undefined; a receipt in memory may hold undefined for absent).
 */
function readCoalescing(raw: Record<string, unknown>, where: Where, field: string): void {
  if (raw.trigger !== undefined && raw.trigger !== 'manual') {
    corrupt(where, prefixed(field, 'trigger'), `must be "manual" when present, found ${describe(raw.trigger)}`);
  }
  const hasMissed = raw.missed !== undefined;
  if (hasMissed && !isSafeIntegerAtLeast(raw.missed, 1)) {
    corrupt(where, prefixed(field, 'missed'), `must be a safe integer of at least 1 when present, found ${describe(raw.missed)}`);
  }
  if (raw.firstMissed === undefined) {
    if (hasMissed)
      corrupt(where, prefixed(field, 'firstMissed'), 'is missing (a receipt with missed names its earliest missed occurrence)');
    return;
  }
  const at = prefixed(field, 'firstMissed');
  if (!hasMissed) corrupt(where, at, 'cannot be stored without missed (it names the earliest of the missed occurrences)');
  const first = readInstant(raw.firstMissed, where, at);
  // Canonical instants of one fixed width compare as text in time order.
  if (first >= (raw.scheduledAt as string)) {
    corrupt(where, at, `must be before the receipt's scheduledAt ${describe(raw.scheduledAt)}, found ${describe(first)}`);
  }
}

/** A new receipt with `receipt`'s members and `prompt` (none when undefined), in the stored order. */
function receiptWith(receipt: DeliveryReceipt, prompt: string | undefined): DeliveryReceipt {
  const out: { -readonly [K in keyof DeliveryReceipt]: DeliveryReceipt[K] } = {
    scheduledAt: receipt.scheduledAt,
    deliveredAt: receipt.deliveredAt,
    messageId: receipt.messageId,
  };
  if (prompt !== undefined) out.prompt = prompt;
  if (receipt.trigger !== undefined) out.trigger = receipt.trigger;
  if (receipt.missed !== undefined) out.missed = receipt.missed;
  if (receipt.firstMissed !== undefined) out.firstMissed = receipt.firstMissed;
  return out;
}

/**
 * Resolves a checked stored receipt (from {@link readStoredReceipt}) against `context`: the
 * receipt itself when it carries its prompt (or none), else a new receipt holding the prompt it
 * refers to.
 */
export function resolveStoredReceipt(raw: Record<string, unknown>, where: Where, field: string, context: PromptContext): DeliveryReceipt {
  if (!Object.hasOwn(raw, 'promptRef')) return raw as unknown as DeliveryReceipt;
  let prompt = context.record;
  if (raw.promptRef === 'previous') {
    const at = prefixed(field, 'promptRef');
    if (context.previous === null) {
      corrupt(where, at, 'is "previous" but this receipt has no previous receipt to refer to (only "record" is possible here)');
    }
    const previous = context.previous.prompt;
    if (previous === undefined) corrupt(where, at, 'is "previous" but the previous receipt has no prompt');
    prompt = previous;
  }
  return receiptWith(raw as unknown as DeliveryReceipt, prompt);
}

/**
 * Decodes one receipt at `field` (e.g. `lastDelivery`, `deliveryHistory.records[3]`): in place,
 * or — when it refers to its prompt — as a new receipt holding the resolved prompt.
 */
export const decodeReceipt = (value: unknown, where: Where, field: string, context: PromptContext): DeliveryReceipt =>
  resolveStoredReceipt(readStoredReceipt(value, where, field), where, field, context);

/** Decodes a saved history (in place) and checks it against the row's `lastDelivery`. */
export function decodeHistory(
  value: unknown,
  lastDelivery: DeliveryReceipt | undefined,
  where: Where,
  recordPrompt: string,
  field = 'deliveryHistory',
): DeliveryHistory {
  const raw = readObject(value, where, field, HISTORY_REQUIRED, HISTORY_OPTIONAL);
  const records = raw.records;
  if (!Array.isArray(records)) corrupt(where, prefixed(field, 'records'), `must be an array of receipts, found ${describe(records)}`);
  // Message ids are collected only when there are two receipts to compare.
  const seen = records.length > 1 ? new Set<string>() : undefined;
  let previous: DeliveryReceipt | null = null;
  for (let index = 0; index < records.length; index++) {
    const receiptField = `${prefixed(field, 'records')}[${index}]`;
    const receipt = decodeReceipt(records[index], where, receiptField, { record: recordPrompt, previous });
    if (seen !== undefined) {
      if (seen.has(receipt.messageId))
        corrupt(where, `${receiptField}.messageId`, `repeats message id ${JSON.stringify(receipt.messageId)}`);
      seen.add(receipt.messageId);
    }
    if (receipt !== records[index]) records[index] = receipt;
    previous = receipt;
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
  a.scheduledAt === b.scheduledAt &&
  a.deliveredAt === b.deliveredAt &&
  a.messageId === b.messageId &&
  a.prompt === b.prompt &&
  a.trigger === b.trigger &&
  a.missed === b.missed &&
  a.firstMissed === b.firstMissed;

/**
 * The receipt as a plain object with its keys in the fixed stored order (scheduledAt,
 * deliveredAt, messageId, prompt or promptRef, trigger, missed, firstMissed). With a `context`, a
 * prompt equal to the record's is stored as `promptRef: "record"` and one equal to the previous
 * receipt's as `promptRef: "previous"`; without one the prompt is written whole.
 */
export function encodeReceipt(receipt: DeliveryReceipt, context?: PromptContext): Record<string, unknown> {
  const out: Record<string, unknown> = { scheduledAt: receipt.scheduledAt, deliveredAt: receipt.deliveredAt, messageId: receipt.messageId };
  const prompt = receipt.prompt;
  if (prompt !== undefined) {
    if (context !== undefined && prompt === context.record) out.promptRef = 'record';
    else if (context?.previous != null && prompt === context.previous.prompt) out.promptRef = 'previous';
    else out.prompt = prompt;
  }
  if (receipt.trigger !== undefined) out.trigger = receipt.trigger;
  if (receipt.missed !== undefined) out.missed = receipt.missed;
  if (receipt.firstMissed !== undefined) out.firstMissed = receipt.firstMissed;
  return out;
}

/** The history as a plain object with its keys in the fixed stored order; prompts by reference against `recordPrompt`. */
export function encodeHistory(history: DeliveryHistory, recordPrompt?: string): Record<string, unknown> {
  let previous: DeliveryReceipt | null = null;
  const records = history.records.map((receipt) => {
    const encoded = encodeReceipt(receipt, recordPrompt === undefined ? undefined : { record: recordPrompt, previous });
    previous = receipt;
    return encoded;
  });
  const out: Record<string, unknown> = { records, earlierRecordsUnavailable: history.earlierRecordsUnavailable };
  if (history.earlierRecordsPruned !== undefined) out.earlierRecordsPruned = history.earlierRecordsPruned;
  return out;
}
