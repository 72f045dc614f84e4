// Task ids from storage: when storage hands out task numbers (as the PostgreSQL storage does from
// its sequence), services sharing it never hand out one id twice. Numbers are taken one at first,
// then in blocks that double while creates keep coming (at most 64), and the batches then name no
// id counter. A failed allocation answers the create `persistence_uncertain` and stores nothing;
// the next create takes numbers again. On PGlite, two services on one schema create at once and
// every id is distinct.

import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { postgresStorage } from '../../src/adapters/postgres/postgresStorage.ts';
import { fenceEpochs, shardLeases } from '../../src/adapters/postgres/shardLeases.ts';
import { ScheduleError } from '../../src/domain/errors.ts';
import type { CommitBatch, ScheduleStorage } from '../../src/ports.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { randomSchema, usePglite } from '../storage/postgresHarness.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const quiet = { warn() {}, error() {} };

/** A shared sequence, as the database's would be: every number once, in order. */
class Sequence {
  next = 1;
  readonly blocks: number[] = [];
  down = false;
  take(count: number): number[] {
    if (this.down) throw new ScheduleError('persistence_uncertain', 'No task number could be taken (the database is down).');
    this.blocks.push(count);
    return Array.from({ length: count }, () => this.next++);
  }
}

/** Memory storage whose task numbers come from a shared sequence, recording the batches it was given. */
class SequencedStorage extends MemoryStorage {
  readonly batches: CommitBatch[] = [];
  constructor(private readonly sequence: Sequence) {
    super();
  }
  override async commit(batch: CommitBatch): Promise<void> {
    this.batches.push(batch);
    await super.commit(batch);
  }
  async allocateTaskNumbers(count: number): Promise<readonly number[]> {
    return this.sequence.take(count);
  }
}

const services: ScheduleService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function service(storage: ScheduleStorage): Promise<ScheduleService> {
  const svc = await createScheduleService({ sessions: createFakeSessions(), storage, clock: createManualClock(T0), logger: quiet });
  services.push(svc);
  return svc;
}

const createIn = async (svc: ScheduleService, n: number): Promise<string> => {
  const view = await svc.callTool('demo', 'schedule_create', { prompt: `check item ${n}`, title: `item ${n}`, after_seconds: 60 + n });
  if ('code' in view) throw new Error(`create ${n} failed: ${view.code}`);
  return view.id;
};

test('two services sharing the sequence never hand out one id twice, and their batches name no counter', async () => {
  const sequence = new Sequence();
  const a = new SequencedStorage(sequence);
  const b = new SequencedStorage(sequence);
  const [first, second] = [await service(a), await service(b)];
  const ids = await Promise.all(Array.from({ length: 40 }, (_, n) => createIn(n % 2 === 0 ? first : second, n)));
  expect(new Set(ids).size).toBe(40);
  for (const id of ids) expect(id).toMatch(/^sch_[1-9][0-9]*$/);
  for (const batch of [...a.batches, ...b.batches]) expect(batch.nextTaskNumber).toBeUndefined();
  // Without the sequence each would have counted from sch_1 on its own.
  expect(ids.filter((id) => id === 'sch_1')).toHaveLength(1);
});

test('numbers are taken one at first, then in doubling blocks of at most 64', async () => {
  const sequence = new Sequence();
  const svc = await service(new SequencedStorage(sequence));
  const ids: string[] = [];
  for (let n = 0; n < 200; n++) ids.push(await createIn(svc, n));
  expect(sequence.blocks.slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 64]);
  expect(ids.slice(0, 5)).toEqual(['sch_1', 'sch_2', 'sch_3', 'sch_4', 'sch_5']);
});

test('a failed allocation answers persistence_uncertain and stores nothing; the next create succeeds', async () => {
  const sequence = new Sequence();
  const storage = new SequencedStorage(sequence);
  const svc = await service(storage);
  sequence.down = true;
  const failed = await svc.callTool('demo', 'schedule_create', { prompt: 'check the lost item', title: 'lost', after_seconds: 60 });
  expect(failed).toMatchObject({ code: 'persistence_uncertain' });
  expect(storage.batches).toHaveLength(0);
  expect(await svc.callTool('demo', 'schedule_list', {})).toEqual([]);
  sequence.down = false;
  expect(await createIn(svc, 1)).toBe('sch_1');
});

describe('on PGlite', () => {
  const db = usePglite();

  test('two services on one schema create at once and every id is distinct, from the sequence', async () => {
    const schema = randomSchema();
    db.schemas.push(schema);
    // Services sharing a schema are the cluster's: fenced storages (a plain one is the schema's only writer).
    const leases = await shardLeases({ pool: db.pool, schema }).acquire({ hostId: 'a', leaseMs: 600_000, want: 256 });
    const fence = { hostId: 'a', epochs: () => fenceEpochs(leases) };
    const first = await service(postgresStorage({ pool: db.pool, schema, fence }));
    const second = await service(postgresStorage({ pool: db.pool, schema, fence }));
    const ids = await Promise.all(Array.from({ length: 30 }, (_, n) => createIn(n % 2 === 0 ? first : second, n)));
    expect(new Set(ids).size).toBe(30);
    const numbers = ids.map((id) => Number(id.slice(4))).sort((x, y) => x - y);
    expect(numbers[0]).toBe(1);
    expect(Math.max(...numbers)).toBeLessThanOrEqual(30 + 2 * 64);
  });
});
