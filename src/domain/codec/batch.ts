// One committed change to the domain as JSON: the journal line format beside the document.
// `{"version":1,"puts":[row,…],"deletes":[id,…],"deliveries"?:[delta,…],"nextTaskNumber"?:n,
// "calls"?:[call,…],"forgetCalls"?:[{sessionId,callId},…]}` — rows encoded exactly as in the
// document, delivery deltas as in delta.ts, remembered calls as in calls.ts, each id named at most
// once per batch. Remembered calls replay after forgotten ones. Replaying a batch applies its deletes, then its puts (a put replaces the row with
// that id), then its deltas (each onto the row the domain holds at that point), and the counter
// only grows. Puts and deletes replay idempotently; a delta applies only to the row it was
// recorded against, which the journal's document check (journal.ts) guarantees.
import { isValidId } from '../args/fields.ts';
import type { CallRef, RememberedCall } from '../tasks/rememberedCalls.ts';
import type { TaskRow } from '../tasks/types.ts';
import { decodeCallRefs, decodeRememberedCalls, encodeCallRef, encodeRememberedCall } from './calls.ts';
import { type DeliveryDelta, decodeDeliveryDelta, encodeDeliveryDelta } from './delta.ts';
import { DOCUMENT_VERSION, decodeTzdata } from './document.ts';
import { decodeRow, encodeRowObject, rowWhere } from './row.ts';
import { corrupt, describe, isSafeIntegerAtLeast, readObject, type Where } from './strict.ts';

/** A batch of row puts, deletes and delivery deltas with an optional new id counter. */
export interface DomainBatch {
  readonly puts: readonly TaskRow[];
  readonly deletes: readonly string[];
  /** Delivery commits recorded as deltas of the rows they apply to (journal lines only). */
  readonly deliveries?: readonly DeliveryDelta[];
  readonly nextTaskNumber?: number;
  /** When present, the time-zone data version the domain now records. */
  readonly tzdata?: string;
  /** Calls remembered in this commit (SPEC §15), beside the rows they changed. */
  readonly calls?: readonly RememberedCall[];
  /** Remembered calls forgotten in this commit (past their retention). */
  readonly forgetCalls?: readonly CallRef[];
  /** Where a batch with deliveries was read (e.g. `schedule.json.journal line 4`), for messages when one cannot apply. */
  readonly source?: Where;
}

/** The batch as one line of compact JSON (without the newline). */
export function encodeBatch(batch: DomainBatch): string {
  const out: Record<string, unknown> = { version: DOCUMENT_VERSION, puts: batch.puts.map(encodeRowObject), deletes: [...batch.deletes] };
  if (batch.deliveries !== undefined && batch.deliveries.length > 0) out.deliveries = batch.deliveries.map(encodeDeliveryDelta);
  if (batch.nextTaskNumber !== undefined) out.nextTaskNumber = batch.nextTaskNumber;
  if (batch.tzdata !== undefined) out.tzdata = batch.tzdata;
  if (batch.calls !== undefined && batch.calls.length > 0) out.calls = batch.calls.map(encodeRememberedCall);
  if (batch.forgetCalls !== undefined && batch.forgetCalls.length > 0) out.forgetCalls = batch.forgetCalls.map(encodeCallRef);
  return JSON.stringify(out);
}

/** Decodes one parsed journal line strictly; `source` names it (e.g. `schedule.json.journal line 4`). */
export function decodeBatch(value: unknown, source: string): DomainBatch {
  const raw = readObject(
    value,
    source,
    '',
    ['version', 'puts', 'deletes'],
    ['deliveries', 'nextTaskNumber', 'tzdata', 'calls', 'forgetCalls'],
  );
  const tzdata = decodeTzdata(raw, source);
  const calls = Object.hasOwn(raw, 'calls') ? { calls: decodeRememberedCalls(raw.calls, source, 'calls') } : {};
  const forgetCalls = Object.hasOwn(raw, 'forgetCalls') ? { forgetCalls: decodeCallRefs(raw.forgetCalls, source, 'forgetCalls') } : {};
  if (raw.version !== DOCUMENT_VERSION) corrupt(source, 'version', `must be ${DOCUMENT_VERSION}, found ${describe(raw.version)}`);
  if (!Array.isArray(raw.puts)) corrupt(source, 'puts', `must be an array of task rows, found ${describe(raw.puts)}`);
  if (!Array.isArray(raw.deletes)) corrupt(source, 'deletes', `must be an array of task ids, found ${describe(raw.deletes)}`);
  const puts = raw.puts.map((item: unknown, index: number) => decodeRow(item, rowWhere(source, 'puts', index, item)));
  const deletes = raw.deletes.map((id: unknown, index: number) => {
    if (!isValidId(id)) corrupt(source, `deletes[${index}]`, `must be a task id, found ${describe(id)}`);
    return id;
  });
  let deliveries: DeliveryDelta[] | undefined;
  if (Object.hasOwn(raw, 'deliveries')) {
    if (!Array.isArray(raw.deliveries) || raw.deliveries.length === 0) {
      corrupt(source, 'deliveries', `must be a non-empty array of delivery deltas when present, found ${describe(raw.deliveries)}`);
    }
    deliveries = raw.deliveries.map((item: unknown, index: number) => decodeDeliveryDelta(item, source, `deliveries[${index}]`));
  }
  const twice = repeatedId({ puts, deletes, ...(deliveries === undefined ? {} : { deliveries }) });
  if (twice !== undefined) corrupt(source, 'puts/deletes/deliveries', `name task ${JSON.stringify(twice)} more than once`);
  const base: DomainBatch =
    deliveries === undefined
      ? { puts, deletes, ...tzdata, ...calls, ...forgetCalls }
      : { puts, deletes, deliveries, source, ...tzdata, ...calls, ...forgetCalls };
  if (!Object.hasOwn(raw, 'nextTaskNumber')) return base;
  if (!isSafeIntegerAtLeast(raw.nextTaskNumber, 1)) {
    corrupt(source, 'nextTaskNumber', `must be a positive safe integer when present, found ${describe(raw.nextTaskNumber)}`);
  }
  return { ...base, nextTaskNumber: raw.nextTaskNumber };
}

/** The first task id a batch names twice (in puts, deletes and deliveries together), if any. */
export function repeatedId(batch: Pick<DomainBatch, 'puts' | 'deletes' | 'deliveries'>): string | undefined {
  const seen = new Set<string>();
  const twice = (id: string): boolean => seen.size === seen.add(id).size;
  for (const row of batch.puts) if (twice(row.record.id)) return row.record.id;
  for (const id of batch.deletes) if (twice(id)) return id;
  for (const delta of batch.deliveries ?? []) if (twice(delta.id)) return delta.id;
  return undefined;
}
