// Task numbers shared by the storages of one cluster Host. Each shard a Host holds has a storage
// (and a schedule service) of its own, and each service takes its numbers in blocks that start at
// one and double while creates keep coming; a Host holding 85 shards would so make one allocation
// per create until each shard's blocks had grown. Handed one source, the shards draw from the
// Host's blocks instead, which double up to `maxBlock` as the Host as a whole creates. A number no
// write uses is never used, as with any block (a restart skips what was left).

/** Takes `count` fresh numbers from the database sequence. */
export type AllocateFromSequence = (count: number) => Promise<readonly number[]>;

export class TaskNumberBlocks {
  private buffer: number[] = [];
  private block = 1;
  private refilling: Promise<void> | undefined;

  constructor(private readonly maxBlock = 256) {}

  /** `count` numbers, in increasing order, from the blocks taken so far or one taken now through `allocate`. */
  async take(count: number, allocate: AllocateFromSequence): Promise<number[]> {
    while (this.buffer.length < count) {
      this.refilling ??= this.refill(Math.max(count - this.buffer.length, this.block), allocate);
      await this.refilling;
    }
    return this.buffer.splice(0, count);
  }

  private async refill(want: number, allocate: AllocateFromSequence): Promise<void> {
    try {
      const numbers = await allocate(want);
      this.buffer = [...this.buffer, ...numbers].sort((a, b) => a - b);
      this.block = Math.min(this.block * 2, this.maxBlock);
    } finally {
      this.refilling = undefined;
    }
  }
}
