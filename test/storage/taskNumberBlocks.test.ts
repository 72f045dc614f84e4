// The task numbers a cluster Host's shards share: takes served from the blocks taken so far, one
// allocation at a time however many shards ask at once, blocks doubling up to the limit, and a
// failed allocation reported to its taker and tried again by the next.
import { TaskNumberBlocks } from '../../src/adapters/postgres/taskNumberBlocks.ts';

/** A sequence that records every allocation asked of it. */
function sequence() {
  let next = 1;
  const asked: number[] = [];
  let fail = false;
  return {
    asked,
    failNext: () => {
      fail = true;
    },
    allocate: async (count: number): Promise<number[]> => {
      asked.push(count);
      await Promise.resolve();
      if (fail) {
        fail = false;
        throw new Error('the database cannot be reached');
      }
      return Array.from({ length: count }, () => next++);
    },
  };
}

test('takes are served from shared blocks that double up to the limit', async () => {
  const seq = sequence();
  const blocks = new TaskNumberBlocks(8);
  const taken: number[] = [];
  for (let i = 0; i < 20; i++) taken.push(...(await blocks.take(1, seq.allocate)));
  expect(taken).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect(seq.asked).toEqual([1, 2, 4, 8, 8]);
});

test('shards asking at once share one allocation, and a take larger than a block gets all it asks', async () => {
  const seq = sequence();
  const blocks = new TaskNumberBlocks(64);
  const takes = await Promise.all([blocks.take(1, seq.allocate), blocks.take(1, seq.allocate), blocks.take(1, seq.allocate)]);
  expect(takes.flat().sort((a, b) => a - b)).toEqual([1, 2, 3]);
  expect(seq.asked).toEqual([1, 2]);
  expect(await blocks.take(10, seq.allocate)).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
  expect(seq.asked).toEqual([1, 2, 10]);
});

test('a failed allocation rejects its take; the next take allocates again', async () => {
  const seq = sequence();
  const blocks = new TaskNumberBlocks();
  seq.failNext();
  await expect(blocks.take(1, seq.allocate)).rejects.toThrow('the database cannot be reached');
  expect(await blocks.take(1, seq.allocate)).toEqual([1]);
});
