// A priority queue of task ids keyed by the instant they are next due (their target, or a retry
// time after a failed delivery). A binary min-heap with lazy deletion: re-keying or removing an id
// only updates the index, and stale heap entries are dropped when they reach the top. Finding the
// next wake is O(1); taking the due ids is O(k log n), all at once or one at a time. The heap is
// two parallel arrays — the keys (unboxed doubles) and the ids — so an entry costs no object of
// its own, and the index keeps the keys of `sch_<n>` ids in an array by n: a domain of a million
// tasks is indexed without a hash table of a million entries.
import { taskNumber } from '../domain/codec/index.ts';
import { MinHeap } from './minHeap.ts';

/** The array by task number grows only to at most this many slots per id it holds… */
const MIN_DENSITY = 4;
/** …or to below this many slots. */
const DENSE_FLOOR = 4096;

/**
 * The key of each queued id: `sch_<n>` ids in a Float64Array by n (NaN where none is queued) when
 * n is not far beyond the ids already held, every other id in a map. Each id is in one place.
 */
export class DueIndex {
  private byNumber = new Float64Array(0);
  private numbered = 0;
  private readonly others = new Map<string, number>();

  get size(): number {
    return this.numbered + this.others.size;
  }

  get(id: string): number | undefined {
    const n = taskNumber(id);
    if (n !== undefined && n < this.byNumber.length) {
      const due = this.byNumber[n] as number;
      if (!Number.isNaN(due)) return due;
    }
    return this.others.size === 0 ? undefined : this.others.get(id);
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }

  set(id: string, due: number): void {
    const n = taskNumber(id);
    // A NaN key, or an id already kept in the map, stays in the map.
    if (n === undefined || Number.isNaN(due) || (this.others.size > 0 && this.others.has(id)) || !this.fits(n)) {
      this.others.set(id, due);
      return;
    }
    const slots = this.byNumber;
    if (Number.isNaN(slots[n])) this.numbered++;
    slots[n] = due;
  }

  delete(id: string): void {
    const n = taskNumber(id);
    if (n !== undefined && n < this.byNumber.length && !Number.isNaN(this.byNumber[n])) {
      this.byNumber[n] = Number.NaN;
      this.numbered--;
      return;
    }
    if (this.others.size > 0) this.others.delete(id);
  }

  *keys(): Generator<string> {
    const slots = this.byNumber;
    for (let n = 1; n < slots.length; n++) if (!Number.isNaN(slots[n])) yield `sch_${n}`;
    yield* this.others.keys();
  }

  /** True when slot n exists, growing the array when that keeps it dense enough. */
  private fits(n: number): boolean {
    const old = this.byNumber;
    if (n < old.length) return true;
    if (n >= Math.max(DENSE_FLOOR, MIN_DENSITY * (this.numbered + 1))) return false;
    const grown = new Float64Array(Math.max(n + 1, 2 * old.length, 64));
    grown.set(old);
    grown.fill(Number.NaN, old.length);
    this.byNumber = grown;
    return true;
  }
}

export class DueQueue {
  /** The heap of (due instant, id); an entry is stale once its id's key is another. */
  private heap = new MinHeap();
  private readonly dueOf = new DueIndex();

  /** Number of ids in the queue. */
  get size(): number {
    return this.dueOf.size;
  }

  /** Queues `id` at `due`, replacing an earlier key. */
  set(id: string, due: number): void {
    if (this.dueOf.get(id) === due) return;
    this.dueOf.set(id, due);
    this.heap.push(id, due);
    if (this.heap.length > 4 * this.dueOf.size + 64) this.rebuild();
  }

  /**
   * Queues an id not yet in the queue without ordering the heap: for loading many ids at once (a
   * restore), followed by one {@link heapify}, O(n) instead of O(n log n).
   */
  append(id: string, due: number): void {
    this.dueOf.set(id, due);
    this.heap.append(id, due);
  }

  /** Orders the heap after {@link append}s. */
  heapify(): void {
    this.heap.heapify();
  }

  has(id: string): boolean {
    return this.dueOf.has(id);
  }

  /** The instant `id` is queued at, or undefined when it is not queued. */
  dueAt(id: string): number | undefined {
    return this.dueOf.get(id);
  }

  /** The queued ids, in no particular order. */
  ids(): IterableIterator<string> {
    return this.dueOf.keys();
  }

  delete(id: string): void {
    this.dueOf.delete(id);
  }

  /** The earliest due instant, or undefined when empty. */
  peek(): number | undefined {
    this.dropStale();
    return this.heap.peek();
  }

  /** Removes and returns the earliest id due at or before `now`, or undefined when none is. */
  takeNext(now: number): string | undefined {
    this.dropStale();
    const due = this.heap.peek();
    if (due === undefined || due > now) return undefined;
    const id = this.heap.pop();
    this.dueOf.delete(id);
    return id;
  }

  /** Removes and returns every id due at or before `now`, earliest first. */
  takeDue(now: number): string[] {
    const out: string[] = [];
    for (;;) {
      this.dropStale();
      const due = this.heap.peek();
      if (due === undefined || due > now) return out;
      const id = this.heap.pop();
      this.dueOf.delete(id);
      out.push(id);
    }
  }

  private dropStale(): void {
    const heap = this.heap;
    while (heap.length > 0 && this.dueOf.get(heap.peekId()) !== heap.peek()) heap.pop();
  }

  private rebuild(): void {
    const heap = new MinHeap();
    for (const id of this.dueOf.keys()) heap.append(id, this.dueOf.get(id) as number);
    heap.heapify();
    this.heap = heap;
  }
}
