// A binary min-heap of (key, id) pairs in two parallel arrays — the keys unboxed doubles, so an
// entry costs no object of its own. The due queue and the split of targets by the clock order
// their ids with it; both drop stale entries lazily, so it only pushes, pops and peeks.

/** A binary min-heap of (key, id) in two parallel arrays. */
export class MinHeap {
  /** `keys[i]` is the key of the entry for `ids[i]`; index 0 holds the smallest. */
  keys: number[] = [];
  ids: string[] = [];

  get length(): number {
    return this.keys.length;
  }

  /** The smallest key, or undefined when empty. */
  peek(): number | undefined {
    return this.keys[0];
  }

  /** The id of the smallest key (the heap must not be empty). */
  peekId(): string {
    return this.ids[0] as string;
  }

  /** Adds without ordering: follow a run of appends with `heapify`. */
  append(id: string, key: number): void {
    this.keys.push(key);
    this.ids.push(id);
  }

  heapify(): void {
    for (let i = (this.keys.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  push(id: string, key: number): void {
    const keys = this.keys;
    const ids = this.ids;
    let i = keys.length;
    keys.push(key);
    ids.push(id);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((keys[parent] as number) <= key) break;
      keys[i] = keys[parent] as number;
      ids[i] = ids[parent] as string;
      i = parent;
    }
    keys[i] = key;
    ids[i] = id;
  }

  /** Removes the smallest entry and answers its id (the heap must not be empty). */
  pop(): string {
    const id = this.ids[0] as string;
    const lastKey = this.keys.pop() as number;
    const lastId = this.ids.pop() as string;
    if (this.keys.length > 0) {
      this.keys[0] = lastKey;
      this.ids[0] = lastId;
      this.down(0);
    }
    return id;
  }

  clear(): void {
    this.keys = [];
    this.ids = [];
  }

  private down(start: number): void {
    const keys = this.keys;
    const ids = this.ids;
    const length = keys.length;
    const key = keys[start] as number;
    const id = ids[start] as string;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && (keys[right] as number) < (keys[left] as number) ? right : left;
      if ((keys[child] as number) >= key) break;
      keys[i] = keys[child] as number;
      ids[i] = ids[child] as string;
      i = child;
    }
    keys[i] = key;
    ids[i] = id;
  }
}
