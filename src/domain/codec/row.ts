// Strict decoding and deterministic encoding of one task row: the Session binding, status,
// record, when it was paused (and why) or a run-now requested, the failure status, latest receipt
// and saved history (docs/tasks.md, docs/storage.md). A row without `status` reads as `active`;
// encoding always writes it, with keys in the fixed order sessionId, status, record, pausedAt,
// pauseNote, triggeredAt, failure, lastDelivery, deliveryHistory (the optional members only when
// present). `pausedAt` and `triggeredAt` are canonical UTC instants, `pauseNote` is 1–500
// characters beside a `pausedAt`, and `failure` is a failure status (failure.ts): only an active
// row carries any of them. Receipts refer to the record's prompt (or the previous receipt's)
// instead of repeating it (see receipt.ts).
import { MAX_PAUSE_NOTE_LENGTH } from '../tasks/pause.ts';
import type { DeliveryReceipt, TaskRow } from '../tasks/types.ts';
import { decodeFailure, encodeFailure } from './failure.ts';
import { decodeHistory, decodeReceipt, encodeHistory, encodeReceipt } from './receipt.ts';
import { decodeRecord, encodeRecord, readInstant } from './record.ts';
import { corrupt, describe, isBoundedString, isPlainObject, type Place, readObject, type Where } from './strict.ts';

/** Longest accepted Session id. */
export const MAX_SESSION_ID_LENGTH = 256;

const ROW_REQUIRED = ['sessionId', 'record'] as const;
const ROW_OPTIONAL = ['status', 'pausedAt', 'pauseNote', 'triggeredAt', 'failure', 'lastDelivery', 'deliveryHistory'] as const;

/** The row members that describe an active task's run state, in stored order. */
const RUN_STATE = ['pausedAt', 'triggeredAt'] as const;

/** The text of a {@link rowWhere} place. */
function rowText(source: string, list: string, index: number, value: unknown): string {
  const position = `${list}[${index}]`;
  const id = isPlainObject(value) && isPlainObject(value.record) ? value.record.id : undefined;
  return typeof id === 'string' ? `${source}: task ${JSON.stringify(id)} (${position})` : `${source}: ${position}`;
}

/** A row's place, spelled only when a message needs it. */
class RowPlace implements Place {
  constructor(
    private readonly source: string,
    private readonly list: string,
    private readonly index: number,
    private readonly value: unknown,
  ) {}

  toString(): string {
    return rowText(this.source, this.list, this.index, this.value);
  }
}

/**
 * Names a row for messages: its task id when the record carries a string id, and its position
 * in its list (`tasks[2]`) either way, after the source (`schedule.json`). The text is built
 * when a message is.
 */
export const rowWhere = (source: string, list: string, index: number, value: unknown): Where => new RowPlace(source, list, index, value);

/**
 * Decodes one stored row (in place; a row without `status` gets a copy with `status: "active"`),
 * failing with `corrupt_schedule_log` naming the task and field.
 */
export function decodeRow(value: unknown, where: Where): TaskRow {
  const raw = readObject(value, where, '', ROW_REQUIRED, ROW_OPTIONAL);
  if (!isBoundedString(raw.sessionId, MAX_SESSION_ID_LENGTH)) {
    corrupt(
      where,
      'sessionId',
      `must be a non-empty string of at most ${MAX_SESSION_ID_LENGTH} characters, found ${describe(raw.sessionId)}`,
    );
  }
  const hasStatus = Object.hasOwn(raw, 'status');
  if (hasStatus && raw.status !== 'active' && raw.status !== 'inactive') {
    corrupt(where, 'status', `must be "active" or "inactive" when present, found ${describe(raw.status)}`);
  }
  const recordPrompt = decodeRecord(raw.record, where).prompt;
  for (const field of RUN_STATE) {
    if (!Object.hasOwn(raw, field)) continue;
    readInstant(raw[field], where, field);
    if (raw.status === 'inactive') corrupt(where, field, 'cannot be stored on an inactive row (only an active task is paused or run now)');
  }
  if (Object.hasOwn(raw, 'pauseNote')) {
    if (!isBoundedString(raw.pauseNote, MAX_PAUSE_NOTE_LENGTH)) {
      corrupt(where, 'pauseNote', `must be a string of 1 to ${MAX_PAUSE_NOTE_LENGTH} characters, found ${describe(raw.pauseNote)}`);
    }
    if (!Object.hasOwn(raw, 'pausedAt'))
      corrupt(where, 'pauseNote', 'can only be stored beside pausedAt (a note says why a task is paused)');
  }
  if (Object.hasOwn(raw, 'failure')) {
    decodeFailure(raw.failure, where, 'failure');
    if (raw.status === 'inactive') corrupt(where, 'failure', 'cannot be stored on an inactive row (a committed delivery clears it)');
  }
  let lastDelivery: DeliveryReceipt | undefined;
  if (Object.hasOwn(raw, 'lastDelivery')) {
    lastDelivery = decodeReceipt(raw.lastDelivery, where, 'lastDelivery', { record: recordPrompt, previous: null });
    if (lastDelivery !== raw.lastDelivery) raw.lastDelivery = lastDelivery;
  }
  if (Object.hasOwn(raw, 'deliveryHistory')) decodeHistory(raw.deliveryHistory, lastDelivery, where, recordPrompt);
  const row = raw as unknown as TaskRow;
  return hasStatus ? row : { ...row, status: 'active' };
}

/** The row as a plain object with its keys (and its members' keys) in the fixed stored order. */
export function encodeRowObject(row: TaskRow): Record<string, unknown> {
  const out: Record<string, unknown> = { sessionId: row.sessionId, status: row.status, record: encodeRecord(row.record) };
  if (row.pausedAt !== undefined) out.pausedAt = row.pausedAt;
  if (row.pauseNote !== undefined) out.pauseNote = row.pauseNote;
  if (row.triggeredAt !== undefined) out.triggeredAt = row.triggeredAt;
  if (row.failure !== undefined) out.failure = encodeFailure(row.failure);
  const prompt = row.record.prompt;
  if (row.lastDelivery !== undefined) out.lastDelivery = encodeReceipt(row.lastDelivery, { record: prompt, previous: null });
  if (row.deliveryHistory !== undefined) out.deliveryHistory = encodeHistory(row.deliveryHistory, prompt);
  return out;
}

/** The row as compact JSON text (one line), deterministic for equal rows. */
export const encodeRow = (row: TaskRow): string => JSON.stringify(encodeRowObject(row));
