// A bounded ring of the most recent items: pushing into a full ring overwrites the oldest, so
// memory stays fixed however long the service runs. Reads copy out, oldest first.

/** A fixed-capacity FIFO that keeps the newest `capacity` items. */
export class EventRing<T> {
  private readonly items: Array<T | undefined>;
  private start = 0;
  private length = 0;
  private droppedCount = 0;

  /** @param capacity how many items are kept; a positive integer. */
  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`The ring capacity must be a positive integer; got ${String(capacity)}.`);
    }
    this.items = new Array<T | undefined>(capacity);
  }

  /** Appends an item, dropping the oldest when full. */
  push(item: T): void {
    if (this.length < this.capacity) {
      this.items[(this.start + this.length) % this.capacity] = item;
      this.length++;
      return;
    }
    this.items[this.start] = item;
    this.start = (this.start + 1) % this.capacity;
    this.droppedCount++;
  }

  /** The kept items, oldest first, that pass `keep`; with `limit`, only the newest `limit` of them. */
  toArray(keep: (item: T) => boolean = () => true, limit = Number.POSITIVE_INFINITY): T[] {
    const out: T[] = [];
    for (let i = this.length - 1; i >= 0 && out.length < limit; i--) {
      const item = this.items[(this.start + i) % this.capacity] as T;
      if (keep(item)) out.push(item);
    }
    return out.reverse();
  }

  /** How many items are kept. */
  get size(): number {
    return this.length;
  }

  /** How many items were overwritten since the ring was created or cleared. */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Forgets every item. */
  clear(): void {
    this.items.fill(undefined);
    this.start = 0;
    this.length = 0;
    this.droppedCount = 0;
  }
}
