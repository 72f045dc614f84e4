// One committed change to the domain as JSON: the journal line format beside the document.
// `{"version":1,"puts":[row,…],"deletes":[id,…],"nextTaskNumber"?:n}` — rows encoded exactly as
// in the document, each id named at most once per batch. Replaying a batch is idempotent: a put
// replaces the row with that id, a delete makes sure the id is absent, and the counter only grows.
import { isValidId } from '../fields.ts';
import type { TaskRow } from '../types.ts';
import { DOCUMENT_VERSION } from './document.ts';
import { decodeRow, encodeRowObject, rowWhere } from './row.ts';
import { corrupt, describe, isSafeIntegerAtLeast, readObject, type Where } from './strict.ts';

/** A batch of row puts and deletes with an optional new id counter. */
export interface DomainBatch {
  readonly puts: readonly TaskRow[];
  readonly deletes: readonly string[];
  readonly nextTaskNumber?: number;
}

/** The batch as one line of compact JSON (without the newline). */
export function encodeBatch(batch: DomainBatch): string {
  const out: Record<string, unknown> = { version: DOCUMENT_VERSION, puts: batch.puts.map(encodeRowObject), deletes: [...batch.deletes] };
  if (batch.nextTaskNumber !== undefined) out.nextTaskNumber = batch.nextTaskNumber;
  return JSON.stringify(out);
}

/** Decodes one parsed journal line strictly; `source` names it (e.g. `schedule.json.journal line 4`). */
export function decodeBatch(value: unknown, source: Where): DomainBatch {
  const raw = readObject(value, source, '', ['version', 'puts', 'deletes'], ['nextTaskNumber']);
  if (raw.version !== DOCUMENT_VERSION) corrupt(source, 'version', `must be ${DOCUMENT_VERSION}, found ${describe(raw.version)}`);
  if (!Array.isArray(raw.puts)) corrupt(source, 'puts', `must be an array of task rows, found ${describe(raw.puts)}`);
  if (!Array.isArray(raw.deletes)) corrupt(source, 'deletes', `must be an array of task ids, found ${describe(raw.deletes)}`);
  const puts = raw.puts.map((item: unknown, index: number) => decodeRow(item, rowWhere(source, `puts[${index}]`, item)));
  const deletes = raw.deletes.map((id: unknown, index: number) => {
    if (!isValidId(id)) corrupt(source, `deletes[${index}]`, `must be a task id, found ${describe(id)}`);
    return id;
  });
  const twice = repeatedId({ puts, deletes });
  if (twice !== undefined) corrupt(source, 'puts/deletes', `name task ${JSON.stringify(twice)} more than once`);
  if (!Object.hasOwn(raw, 'nextTaskNumber')) return { puts, deletes };
  if (!isSafeIntegerAtLeast(raw.nextTaskNumber, 1)) {
    corrupt(source, 'nextTaskNumber', `must be a positive safe integer when present, found ${describe(raw.nextTaskNumber)}`);
  }
  return { puts, deletes, nextTaskNumber: raw.nextTaskNumber };
}

/** The first task id a batch names twice (in puts and deletes together), if any. */
export function repeatedId(batch: Pick<DomainBatch, 'puts' | 'deletes'>): string | undefined {
  const seen = new Set<string>();
  for (const id of [...batch.puts.map((row) => row.record.id), ...batch.deletes]) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}
