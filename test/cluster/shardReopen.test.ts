// A shard whose service could not be opened (its storage refused the open, as a database that
// refuses connections does) is opened again on the Host's timers while the Host still holds it,
// after a pause that doubles with each failure; one released meanwhile is not opened again.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { ShardHost } from '../../src/cluster/shardHost.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { StoredDomain } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { waitUntil } from '../support/waitUntil.ts';

const quiet = { warn() {}, error() {} };

/** A memory storage whose first `failures` opens are refused. */
class FlakyStorage extends MemoryStorage {
  constructor(private refusals: number) {
    super();
  }
  override async open(): Promise<StoredDomain> {
    if (this.refusals > 0) {
      this.refusals -= 1;
      throw new ScheduleError('persistence_uncertain', 'the database refused the connection');
    }
    return super.open();
  }
}

function flakyHost(failures: number) {
  const pending: Array<{ run: () => void; ms: number }> = [];
  const storage = new FlakyStorage(failures);
  const clock = createManualClock('2030-01-01T08:00:00.000Z');
  let opens = 0;
  const host = new ShardHost({
    shardOf: () => 0,
    logger: quiet,
    openShard: () => createScheduleService({ sessions: createFakeSessions(), clock, logger: quiet, storage }),
    onOpened: () => {
      opens += 1;
    },
    route: async () => ({ error: { code: 'owner_unavailable', message: 'no other Host' } }),
    reopen: {
      timers: {
        setTimeout: (run, ms) => pending.push({ run, ms }),
        clearTimeout: (handle) => {
          pending.splice(Number(handle) - 1, 1);
        },
      },
    },
  });
  /** Waits until the Host has put the retry of a failed open on its timers. */
  const retryScheduled = () => waitUntil(() => pending.length === 1, 'the retry of the failed open on the timers');
  /** Waits until the `n`th open has settled. */
  const opened = (n: number) => waitUntil(() => opens >= n, `open number ${n} to settle`);
  return { host, pending, retryScheduled, opened };
}

test('a failed open is tried again, after 1 s and then 2 s, until the service opens', async () => {
  const { host, pending, retryScheduled, opened } = flakyHost(2);
  host.acquired(0, 1);
  await retryScheduled();
  expect(pending.map((p) => p.ms)).toEqual([1000]);
  pending.shift()?.run();
  await retryScheduled();
  expect(pending.map((p) => p.ms)).toEqual([2000]);
  pending.shift()?.run();
  await opened(3);
  expect(pending).toEqual([]);
  expect(await host.dispatch({ kind: 'tool', sessionId: 'alice', name: 'schedule_list', args: {} })).toEqual([]);
  await host.close();
});

test('a shard released before its retry is not opened again', async () => {
  const { host, pending, retryScheduled } = flakyHost(1);
  host.acquired(0, 1);
  await retryScheduled();
  expect(pending).toHaveLength(1);
  await host.release(0);
  expect(pending).toHaveLength(0);
  expect(host.held().size).toBe(0);
});
