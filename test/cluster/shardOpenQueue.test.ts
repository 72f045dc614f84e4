// The opens of a Host's shard services: a shard taken over from a Host whose lease ran out opens
// at once (its reminders are overdue); the others take turns, at most `maxOpening` at a time, one
// handed on before one never held, so a Host taking dozens of shards does not open them all at
// once over its pool. `openCapacity()` (what the
// lease keeper takes at most) counts every shard not yet open; a shard released while it waits for
// its turn gives the turn up and is never opened; each finished open is announced (`onOpened`).
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { type OpenUrgency, ShardHost } from '../../src/cluster/shardHost.ts';
import type { ScheduleService } from '../../src/service.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { waitUntil } from '../support/waitUntil.ts';

const quiet = { warn() {}, error() {} };

/** A Host whose opens wait until the test lets each one finish. */
function gatedHost(maxOpening: number) {
  const clock = createManualClock('2030-01-01T08:00:00.000Z');
  const sessions = createFakeSessions();
  const started: number[] = [];
  const gates = new Map<number, () => void>();
  let opened = 0;
  const host = new ShardHost({
    shardOf: (sessionId) => Number(sessionId.split('-')[1]),
    logger: quiet,
    maxOpening,
    onOpened: () => {
      opened++;
    },
    openShard: async (shard): Promise<ScheduleService> => {
      started.push(shard);
      await new Promise<void>((resolve) => gates.set(shard, resolve));
      return createScheduleService({ sessions, clock, logger: quiet, storage: new MemoryStorage() });
    },
    route: async () => ({ error: { code: 'owner_unavailable', message: 'no other Host' } }),
  });
  /** Lets shard `shard`'s open finish, once it has started. */
  const finish = async (shard: number): Promise<void> => {
    await waitUntil(() => gates.has(shard), `the open of shard ${shard} to start`);
    gates.get(shard)?.();
    gates.delete(shard);
  };
  return { host, started, finish, opened: () => opened };
}

const hosts: ShardHost[] = [];
afterEach(async () => {
  for (const h of hosts.splice(0)) await h.close();
});

test('taken-over shards open at once; the others take turns, maxOpening at a time, handed-on ones before new ones', async () => {
  const { host, started, finish, opened } = gatedHost(2);
  hosts.push(host);
  expect(host.openCapacity()).toBe(2);
  const gained: Array<[number, OpenUrgency]> = [
    [10, 'new'],
    [11, 'new'],
    [12, 'new'],
    [13, 'released'],
    [14, 'expired'],
    [15, 'expired'],
  ];
  for (const [shard, from] of gained) host.acquired(shard, 1, from);
  // Every shard not yet open counts against the capacity, also those waiting for their turn.
  expect(host.openCapacity()).toBe(0);
  await waitUntil(() => started.length === 4, 'two turns and the two taken-over shards to start');
  expect(started).toEqual([10, 11, 14, 15]);
  await finish(14);
  await finish(15);
  // The taken-over ones took no turn: shard 13 still waits for one of the first two.
  expect(started).toHaveLength(4);
  await finish(10);
  await waitUntil(() => started.length === 5, 'the next open to start');
  expect(started[4]).toBe(13);
  await finish(11);
  await finish(13);
  await finish(12);
  expect(started).toEqual([10, 11, 14, 15, 13, 12]);
  await waitUntil(() => opened() === 6, 'every open to be announced');
  expect(host.openCapacity()).toBe(2);
  expect((await host.services()).length).toBe(6);
});

test('a shard released while it waits for its turn is never opened, and its release does not wait for the others', async () => {
  const { host, started, finish } = gatedHost(1);
  hosts.push(host);
  host.acquired(1, 1, 'new');
  host.acquired(2, 1, 'new');
  await waitUntil(() => started.length === 1, 'the first open to start');
  // Shard 2 waits behind shard 1, whose open has not finished: its release returns at once.
  await host.release(2);
  expect([...host.held().keys()]).toEqual([1]);
  expect(host.openCapacity()).toBe(0);
  await finish(1);
  await waitUntil(() => host.openCapacity() === 1, 'the open of shard 1 to finish');
  expect(started).toEqual([1]);
  // A call for shard 1 runs on its opened service.
  expect(await host.dispatch({ kind: 'remote.list', sessionId: 's-1', request: { sessionId: 's-1' } })).toEqual([]);
});
