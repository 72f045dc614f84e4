// Task rows by id, as a Map keyed by `record.id` would hold them (insertion order included),
// without a hash table of every id while the ids are a domain's own `sch_<n>` in the order it
// hands them out: a large domain's rows then sit in an array by task number.
import { taskNumber } from '../domain/codec/index.ts';
import type { TaskRow } from '../domain/tasks/types.ts';

/** The array by task number may have at most this many slots per row it holds… */
const MAX_SLOTS_PER_ROW = 4;
/** …beyond this many slots. */
const SLOT_FLOOR = 4096;

/** The rows of an array by task number, in task-number order, skipping empty slots. */
class SlotIterator implements IterableIterator<TaskRow> {
  private position = 1;

  constructor(private readonly slots: readonly (TaskRow | undefined)[]) {}

  next(): IteratorResult<TaskRow> {
    const slots = this.slots;
    while (this.position < slots.length) {
      const row = slots[this.position++];
      if (row !== undefined) return { value: row, done: false };
    }
    return { value: undefined, done: true };
  }

  [Symbol.iterator](): IterableIterator<TaskRow> {
    return this;
  }
}

/**
 * Rows by id, behaving as a Map keyed by `record.id` (insertion order included). While every id
 * added is `sch_<n>` with n above every earlier one — as a domain hands its ids out — the rows
 * are kept in an array by n, so a large domain is indexed without a hash table of all its ids;
 * any other addition (another id, a lower number, an array grown too sparse) turns it into a Map
 * holding the same rows in the same order.
 */
export class RowIndex {
  /** Rows by task number (slot 0 unused); undefined once the rows are in {@link map}. */
  private slots: (TaskRow | undefined)[] | undefined = [];
  private map: Map<string, TaskRow> | undefined;
  private count = 0;

  get size(): number {
    return this.map === undefined ? this.count : this.map.size;
  }

  get(id: string): TaskRow | undefined {
    const slots = this.slots;
    if (slots === undefined) return (this.map as Map<string, TaskRow>).get(id);
    const n = taskNumber(id);
    return n === undefined || n >= slots.length ? undefined : slots[n];
  }

  /** Adds or replaces the row with the id `row.record.id`. */
  set(row: TaskRow): void {
    const slots = this.slots;
    if (slots === undefined) {
      (this.map as Map<string, TaskRow>).set(row.record.id, row);
      return;
    }
    const n = taskNumber(row.record.id);
    if (n !== undefined) {
      if (n < slots.length && slots[n] !== undefined) {
        slots[n] = row;
        return;
      }
      if (n >= slots.length && n < Math.max(SLOT_FLOOR, MAX_SLOTS_PER_ROW * (this.count + 1))) {
        slots[n] = row;
        this.count++;
        return;
      }
    }
    this.toMap().set(row.record.id, row);
  }

  delete(id: string): void {
    const slots = this.slots;
    if (slots === undefined) {
      (this.map as Map<string, TaskRow>).delete(id);
      return;
    }
    const n = taskNumber(id);
    if (n === undefined || n >= slots.length || slots[n] === undefined) return;
    slots[n] = undefined;
    this.count--;
    if (slots.length > SLOT_FLOOR && MAX_SLOTS_PER_ROW * this.count < slots.length) this.toMap();
  }

  clear(): void {
    this.slots = [];
    this.map = undefined;
    this.count = 0;
  }

  /** The rows in insertion order. */
  values(): IterableIterator<TaskRow> {
    return this.slots === undefined ? (this.map as Map<string, TaskRow>).values() : new SlotIterator(this.slots);
  }

  private toMap(): Map<string, TaskRow> {
    const map = new Map<string, TaskRow>();
    for (const row of this.values()) map.set(row.record.id, row);
    this.map = map;
    this.slots = undefined;
    this.count = 0;
    return map;
  }
}
