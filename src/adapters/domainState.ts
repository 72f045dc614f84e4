// The in-memory view of a stored domain that every storage adapter keeps: rows by task id in
// stored order plus the id counter, the validation a batch passes before it may be written
// (every put must encode to a row the strict decoder accepts), and the application of a batch —
// including a replayed journal line's delivery deltas, each onto the row held at that point.
// Adapters change this view only after the batch holding the change is durable.

import { isValidId } from '../domain/args/fields.ts';
import { decodeCallRefs, decodeRememberedCalls, encodeCallRef, encodeRememberedCall } from '../domain/codec/calls.ts';
import {
  applyDeliveryDelta,
  type DomainBatch,
  type DomainSnapshot,
  decodeRow,
  deliveredRowOf,
  encodeRowObject,
  nextTaskNumberAfter,
  repeatedId,
} from '../domain/codec/index.ts';
import { corrupt, type Place, type Where } from '../domain/codec/strict.ts';
import { isScheduleError, ScheduleError } from '../domain/errors.ts';
import { isFrozenRow } from '../domain/tasks/frozenRows.ts';
import { type CallRef, callKey, type RememberedCall } from '../domain/tasks/rememberedCalls.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { CommitBatch } from '../ports.ts';

/** A batch checked and normalised for writing. */
export type PreparedBatch = DomainBatch;

/** The rows a storage holds (each checked before it was stored), by task id. */
export interface StoredRows {
  get(id: string): TaskRow | undefined;
}

/**
 * The checked copy of a put that only records a delivery on top of `base` (a row checked before),
 * by what the delivery adds (`deliveredRowOf`): it shares `base`'s kept receipts, so a delivery
 * costs the receipts it adds, not the whole saved history. Undefined for any other put, and for
 * one whose additions are refused (the whole-row decode then decides, with its own message).
 */
function checkedDelivery(base: TaskRow, row: TaskRow, where: Where): TaskRow | undefined {
  try {
    return deliveredRowOf(base, row, where);
  } catch {
    return undefined;
  }
}

/** Where a put of a commit is, spelled only when a message needs it. */
class PutPlace implements Place {
  constructor(private readonly index: number) {}

  toString(): string {
    return `commit puts[${this.index}]`;
  }
}

/**
 * One checked put: a delivery on top of the stored row by {@link checkedDelivery}, any other
 * row encoded and strictly decoded whole. A row the service froze (`freezeRow`) is kept as it is
 * once it passes, since no one can change it; any other is kept as the checked copy, built from
 * fresh objects, so later changes to the caller's objects cannot reach storage.
 */
function preparedRow(row: TaskRow, index: number, stored: StoredRows | undefined): TaskRow {
  const where = new PutPlace(index);
  // A put that is not even shaped like a row has no stored version to build on.
  const id: unknown = row?.record?.id;
  const base = stored !== undefined && typeof id === 'string' ? stored.get(id) : undefined;
  const checked = (base === undefined ? undefined : checkedDelivery(base, row, where)) ?? decodeRow(encodeRowObject(row), where);
  return isFrozenRow(row) ? row : checked;
}

/**
 * Checks a batch before it joins a write: every put is a valid row (a checked copy is kept, so
 * later changes to the caller's objects cannot reach storage), every delete a task id, no id
 * named twice, and a counter (when given) a positive safe integer. The counter carried forward
 * is at least one more than any `sch_<n>` put. `stored` gives the rows the storage holds: a put
 * that only adds a delivery to one of them is checked by what it adds.
 *
 * @throws ScheduleError `internal_error` naming the problem; nothing is written.
 */
export function prepareBatch(batch: CommitBatch, stored?: StoredRows): PreparedBatch {
  let puts: TaskRow[];
  try {
    puts = batch.puts.map((row, index) => preparedRow(row, index, stored));
  } catch (error) {
    const reason = isScheduleError(error) ? error.message : String(error);
    throw new ScheduleError('internal_error', `Refusing to store an invalid task row: ${reason}`, { cause: error });
  }
  for (const id of batch.deletes) {
    if (!isValidId(id))
      throw new ScheduleError('internal_error', `Refusing to commit: delete of ${JSON.stringify(id)}, which is not a task id.`);
  }
  const twice = repeatedId({ puts, deletes: batch.deletes });
  if (twice !== undefined)
    throw new ScheduleError('internal_error', `Refusing to commit: the batch names task ${JSON.stringify(twice)} more than once.`);
  const given = batch.nextTaskNumber;
  if (given !== undefined && (!Number.isSafeInteger(given) || given < 1)) {
    throw new ScheduleError('internal_error', `Refusing to commit: nextTaskNumber ${String(given)} is not a positive safe integer.`);
  }
  const tz = batch.tzdata;
  if (tz !== undefined && (typeof tz !== 'string' || tz.length === 0 || tz.length > 64)) {
    throw new ScheduleError('internal_error', `Refusing to commit: tzdata ${String(tz)} is not a time-zone data version.`);
  }
  const tzdata = { ...(tz === undefined ? {} : { tzdata: tz }), ...preparedCalls(batch) };
  const derived = nextTaskNumberAfter(
    puts.map((row) => row.record.id),
    given ?? 1,
  );
  return given === undefined && derived === 1
    ? { puts, deletes: [...batch.deletes], ...tzdata }
    : { puts, deletes: [...batch.deletes], nextTaskNumber: derived, ...tzdata };
}

/**
 * A batch's remembered and forgotten calls, checked by a round trip through the codec (so what is
 * kept is a copy the caller cannot change, and exactly what a reopen would read).
 *
 * @throws ScheduleError `internal_error` naming the problem.
 */
function preparedCalls(batch: CommitBatch): { calls?: RememberedCall[]; forgetCalls?: CallRef[] } {
  const out: { calls?: RememberedCall[]; forgetCalls?: CallRef[] } = {};
  try {
    if (batch.calls !== undefined && batch.calls.length > 0) {
      out.calls = decodeRememberedCalls(JSON.parse(JSON.stringify(batch.calls.map(encodeRememberedCall))), 'commit', 'calls');
    }
    if (batch.forgetCalls !== undefined && batch.forgetCalls.length > 0) {
      out.forgetCalls = decodeCallRefs(batch.forgetCalls.map(encodeCallRef), 'commit', 'forgetCalls');
    }
  } catch (error) {
    const reason = isScheduleError(error) ? error.message : String(error);
    throw new ScheduleError('internal_error', `Refusing to store an invalid remembered call: ${reason}`, { cause: error });
  }
  return out;
}

/**
 * Rows by task id (in stored order) and the id counter. The rows of the snapshot it starts from
 * are indexed by id only when first needed (a lookup, a batch, an iteration), so an open that
 * only hands the domain on builds no index.
 */
export class DomainState {
  private readonly rows = new Map<string, TaskRow>();
  /** The starting snapshot's rows while they are not yet in `rows`. */
  private unindexed: readonly TaskRow[] | undefined;
  private counter: number;
  private tz: string | undefined;
  /** Remembered calls by `callKey`, oldest first. */
  private readonly remembered = new Map<string, RememberedCall>();

  constructor(snapshot: DomainSnapshot = { tasks: [], nextTaskNumber: 1 }) {
    if (snapshot.tasks.length > 0) this.unindexed = snapshot.tasks;
    this.counter = snapshot.nextTaskNumber;
    this.tz = snapshot.tzdata;
    for (const call of snapshot.calls ?? []) this.remembered.set(callKey(call), call);
  }

  /** The rows by id, indexing the starting snapshot's rows first if that has not happened yet. */
  private indexed(): Map<string, TaskRow> {
    const pending = this.unindexed;
    if (pending !== undefined) {
      this.unindexed = undefined;
      for (const row of pending) this.rows.set(row.record.id, row);
    }
    return this.rows;
  }

  /**
   * Applies a batch: deletes make sure ids are absent, puts replace or append rows, delivery
   * deltas replace the row they were recorded against, the counter only grows.
   *
   * @throws ScheduleError `corrupt_schedule_log` (naming the batch's source) for a delta whose row
   *   is missing or is not the one it was recorded against; the view is then unusable.
   */
  apply(batch: DomainBatch): void {
    const rows = this.indexed();
    for (const id of batch.deletes) rows.delete(id);
    for (const row of batch.puts) rows.set(row.record.id, row);
    const source = batch.source ?? 'journal';
    for (const [index, delta] of (batch.deliveries ?? []).entries()) {
      const field = `deliveries[${index}]`;
      const base = rows.get(delta.id);
      if (base === undefined) {
        corrupt(
          source,
          field,
          `records a delivery of task ${JSON.stringify(delta.id)}, which the domain does not hold at this point (a delta needs the row it applies to)`,
        );
      }
      rows.set(delta.id, applyDeliveryDelta(base, delta, source, field));
    }
    if (batch.tzdata !== undefined) this.tz = batch.tzdata;
    for (const ref of batch.forgetCalls ?? []) this.remembered.delete(callKey(ref));
    for (const call of batch.calls ?? []) this.remembered.set(callKey(call), call);
    const floor = Math.max(this.counter, batch.nextTaskNumber ?? 1);
    this.counter = nextTaskNumberAfter(
      batch.puts.map((row) => row.record.id),
      floor,
    );
  }

  get nextTaskNumber(): number {
    return this.counter;
  }

  /** The recorded time-zone data version, if any. */
  get tzdata(): string | undefined {
    return this.tz;
  }

  /** The remembered calls, oldest first. */
  get calls(): readonly RememberedCall[] {
    return [...this.remembered.values()];
  }

  /** The stored row with this id, if any. */
  get(id: string): TaskRow | undefined {
    return this.indexed().get(id);
  }

  /** The rows in stored order (live iterator; do not apply batches while iterating). */
  tasks(): IterableIterator<TaskRow> {
    return this.indexed().values();
  }

  /** The whole domain as a snapshot (a fresh array of the stored rows). */
  snapshot(): DomainSnapshot {
    const tasks = this.unindexed === undefined ? [...this.rows.values()] : this.unindexed.slice();
    const snapshot = {
      tasks,
      nextTaskNumber: this.counter,
      ...(this.remembered.size === 0 ? {} : { calls: [...this.remembered.values()] }),
    };
    return this.tz === undefined ? snapshot : { ...snapshot, tzdata: this.tz };
  }
}
