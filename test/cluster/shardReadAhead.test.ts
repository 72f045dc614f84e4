// A shard read ahead of its hand-over (`prepare`): the read counts as an open against
// `openCapacity()` until its lease arrives; gained at the epoch it was read for, the shard's
// service opens from that read at once; at another epoch
// the read is let go and the shard opens as any other; a read no longer wanted (`unprepare`), or
// held when the Host closes, is let go; a read that failed leaves the shard to open the usual way.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { type PreparedShard, ShardHost } from '../../src/cluster/shardHost.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { waitUntil } from '../support/waitUntil.ts';

const quiet = { warn() {}, error() {} };

interface Read extends PreparedShard {
  readonly shard: number;
  readonly epoch: number;
}

function readingHost() {
  const clock = createManualClock('2030-01-01T08:00:00.000Z');
  const sessions = createFakeSessions();
  const opens: string[] = [];
  const discarded: string[] = [];
  const failing = new Set<number>();
  const host = new ShardHost<Read>({
    shardOf: (sessionId) => Number(sessionId.split('-')[1]),
    logger: quiet,
    maxOpening: 2,
    prepareShard: async (shard, epoch) => {
      if (failing.has(shard)) throw new Error('the database refused');
      return { shard, epoch, discard: () => discarded.push(`${shard}@${epoch}`) };
    },
    openShard: async (shard, epoch, _current, read) => {
      opens.push(read === undefined ? `${shard}@${epoch}` : `${shard}@${epoch} from read ${read.shard}@${read.epoch}`);
      return createScheduleService({ sessions, clock, logger: quiet, storage: new MemoryStorage() });
    },
    route: async () => ({ error: { code: 'owner_unavailable', message: 'no other Host' } }),
  });
  return { host, opens, discarded, failing };
}

const hosts: ShardHost<Read>[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

test('a shard read ahead opens from the read when gained at its epoch, and counts as an open until then', async () => {
  const { host, opens, discarded } = readingHost();
  hosts.push(host);
  expect(await host.prepare(5, 3)).toBe(true);
  expect(await host.prepare(6, 3)).toBe(true);
  expect(host.openCapacity()).toBe(0);
  expect(host.serving(5)).toBe(false);
  host.acquired(5, 3, 'handed');
  host.acquired(6, 4, 'handed');
  await waitUntil(() => host.serving(5) && host.serving(6), 'shards 5 and 6 to open');
  expect(opens.sort()).toEqual(['5@3 from read 5@3', '6@4']);
  expect(discarded).toEqual(['6@3']);
  expect(host.openCapacity()).toBe(2);
});

test('a read no longer wanted, or held at close, is let go; a failed read leaves the usual open', async () => {
  const { host, opens, discarded, failing } = readingHost();
  hosts.push(host);
  expect(await host.prepare(7, 2)).toBe(true);
  host.unprepare(7);
  await waitUntil(() => discarded.length === 1, 'the read of 7 to be let go');
  expect(discarded).toEqual(['7@2']);
  expect(host.openCapacity()).toBe(2);
  failing.add(8);
  expect(await host.prepare(8, 2)).toBe(false);
  expect(host.openCapacity()).toBe(2);
  host.acquired(8, 2, 'handed');
  await waitUntil(() => host.serving(8), 'shard 8 to open');
  expect(opens).toEqual(['8@2']);
  // A shard held already is not read ahead.
  expect(await host.prepare(8, 3)).toBe(false);
  expect(await host.prepare(9, 2)).toBe(true);
  await host.close();
  hosts.splice(0);
  await waitUntil(() => discarded.length === 2, 'the read of 9 to be let go');
  expect(discarded).toEqual(['7@2', '9@2']);
});
