// The best few of many: a sorted list that keeps at most `capacity` items, so picking the top 50
// Sessions or top 100 tasks out of 100,000 costs one comparison per candidate once the list is
// full (a candidate no better than the last kept is dropped at once), never a sort of them all.

/** A sorted list of at most `capacity` items, best first by `compare` (negative: a before b). */
export class TopList<T> {
  private readonly items: T[] = [];

  constructor(
    readonly capacity: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** Keeps `item` if it is among the best `capacity` offered so far. */
  offer(item: T): void {
    const { items, capacity, compare } = this;
    if (capacity <= 0) return;
    if (items.length === capacity && compare(item, items[capacity - 1] as T) >= 0) return;
    // Binary search for the first kept item that sorts after `item` (stable: ties keep offer order).
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(item, items[mid] as T) < 0) hi = mid;
      else lo = mid + 1;
    }
    items.splice(lo, 0, item);
    if (items.length > capacity) items.pop();
  }

  /** The kept items, best first. */
  toArray(): T[] {
    return [...this.items];
  }

  get size(): number {
    return this.items.length;
  }
}
