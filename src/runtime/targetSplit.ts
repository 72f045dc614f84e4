// The targets of the active, unpaused tasks, split by the clock: how many lie at or before now
// (overdue) is read without a scan. Each target sits on one side of a boundary instant — the
// `now` of the last read — in a heap per side: the later side a min-heap, the earlier a max-heap.
// A read at a later `now` moves the targets the boundary passed from one heap to the other, so
// over time each target crosses once per pass of the clock, O(log n) each; a clock set back moves
// them the other way. Heap entries are dropped lazily: an entry counts only while the index still
// holds that id at that key on that side. The keys live in a `DueIndex` (an array by task number),
// so a large domain is indexed without a hash table of its ids.
import { DueIndex } from './dueQueue.ts';
import { MinHeap } from './minHeap.ts';

/** Ids keyed by an instant, counted on either side of a moving `now`. */
export class TargetSplit {
  private readonly targets = new DueIndex();
  /** Targets after the boundary, soonest first. */
  private readonly later = new MinHeap();
  /** Targets at or before the boundary, keyed by their negation: latest first. */
  private readonly earlier = new MinHeap();
  private boundary = Number.NEGATIVE_INFINITY;
  private earlierCount = 0;

  /** How many ids are held. */
  get size(): number {
    return this.targets.size;
  }

  /** Holds `id` at `at`, replacing its earlier key. */
  set(id: string, at: number): void {
    const old = this.targets.get(id);
    if (old === at) return;
    if (old !== undefined && old <= this.boundary) this.earlierCount--;
    this.targets.set(id, at);
    if (at <= this.boundary) {
      this.earlierCount++;
      this.earlier.push(id, -at);
    } else this.later.push(id, at);
    this.compact();
  }

  /**
   * Holds an id not held yet, without ordering the heaps: for loading many at once before the
   * first read, followed by one `heapify`.
   */
  append(id: string, at: number): void {
    this.targets.set(id, at);
    if (at <= this.boundary) {
      this.earlierCount++;
      this.earlier.append(id, -at);
    } else this.later.append(id, at);
  }

  /** Orders the heaps after `append`s. */
  heapify(): void {
    this.later.heapify();
    this.earlier.heapify();
  }

  delete(id: string): void {
    const old = this.targets.get(id);
    if (old === undefined) return;
    if (old <= this.boundary) this.earlierCount--;
    this.targets.delete(id);
  }

  /** How many ids are held at or before `now`. */
  atOrBefore(now: number): number {
    if (now > this.boundary) this.advance(now);
    else if (now < this.boundary) this.retreat(now);
    return this.earlierCount;
  }

  /** Moves the targets in (boundary, now] to the earlier side. */
  private advance(now: number): void {
    const from = this.boundary;
    const moved = new Set<string>();
    for (let key = this.later.peek(); key !== undefined && key <= now; key = this.later.peek()) {
      const id = this.later.pop();
      // A duplicate entry (an id removed and held again at the same key) moves once.
      if (this.targets.get(id) !== key || key <= from || moved.has(id)) continue;
      moved.add(id);
      this.earlier.push(id, -key);
      this.earlierCount++;
    }
    this.boundary = now;
  }

  /** Moves the targets in (now, boundary] back to the later side (the clock was set back). */
  private retreat(now: number): void {
    const from = this.boundary;
    const moved = new Set<string>();
    for (let negated = this.earlier.peek(); negated !== undefined && -negated > now; negated = this.earlier.peek()) {
      const id = this.earlier.pop();
      const key = -negated;
      if (this.targets.get(id) !== key || key > from || moved.has(id)) continue;
      moved.add(id);
      this.later.push(id, key);
      this.earlierCount--;
    }
    this.boundary = now;
  }

  /** Rebuilds both heaps from the held keys once stale entries outnumber live ones. */
  private compact(): void {
    if (this.later.length + this.earlier.length <= 4 * this.targets.size + 64) return;
    this.later.clear();
    this.earlier.clear();
    for (const id of this.targets.keys()) {
      const at = this.targets.get(id) as number;
      if (at <= this.boundary) this.earlier.append(id, -at);
      else this.later.append(id, at);
    }
    this.heapify();
  }
}
