// A priority queue of task ids keyed by the instant they are next due (their target, or a retry
// time after a failed delivery). A binary min-heap with lazy deletion: re-keying or removing an id
// only updates the index, and stale heap entries are dropped when they reach the top. Finding the
// next wake is O(1); taking the due ids is O(k log n).

interface Entry {
  readonly due: number;
  readonly id: string;
}

export class DueQueue {
  private heap: Entry[] = [];
  private readonly dueOf = new Map<string, number>();

  /** Number of ids in the queue. */
  get size(): number {
    return this.dueOf.size;
  }

  /** Queues `id` at `due`, replacing an earlier key. */
  set(id: string, due: number): void {
    if (this.dueOf.get(id) === due) return;
    this.dueOf.set(id, due);
    this.push({ due, id });
    if (this.heap.length > 4 * this.dueOf.size + 64) this.rebuild();
  }

  /**
   * Queues an id not yet in the queue without ordering the heap: for loading many ids at once (a
   * restore), followed by one {@link heapify}, O(n) instead of O(n log n).
   */
  append(id: string, due: number): void {
    this.dueOf.set(id, due);
    this.heap.push({ due, id });
  }

  /** Orders the heap after {@link append}s. */
  heapify(): void {
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  has(id: string): boolean {
    return this.dueOf.has(id);
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
    return this.heap[0]?.due;
  }

  /** Removes and returns every id due at or before `now`, earliest first. */
  takeDue(now: number): string[] {
    const out: string[] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap[0];
      if (top === undefined || top.due > now) return out;
      this.pop();
      this.dueOf.delete(top.id);
      out.push(top.id);
    }
  }

  private dropStale(): void {
    for (;;) {
      const top = this.heap[0];
      if (top === undefined || this.dueOf.get(top.id) === top.due) return;
      this.pop();
    }
  }

  private rebuild(): void {
    this.heap = [...this.dueOf].map(([id, due]) => ({ id, due }));
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  private push(entry: Entry): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.due <= entry.due) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    this.down(0);
  }

  private down(start: number): void {
    const heap = this.heap;
    const entry = heap[start]!;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.due < heap[left]!.due ? right : left;
      if (heap[child]!.due >= entry.due) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = entry;
  }
}
