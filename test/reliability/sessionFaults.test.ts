// Session faults: one Session's flush hangs and then fails, or its `resolveAgent` keeps rejecting,
// while other Sessions have reminders due. The other Sessions are delivered on time and recorded;
// the mailbox keeps answering everyone, the failing Session included; nothing of the failing
// Session is recorded while it fails; once it recovers each of its tasks is delivered and
// recorded once (a recurring task with only its latest missed occurrence), and a restart opens
// exactly the acknowledged domain.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { createManualClock } from '../../src/testing.ts';
import { closeAll, closeHarness, create, type Harness, harness, tick } from '../support/harness.ts';
import { waitUntil } from '../support/waitUntil.ts';
import { type AcknowledgedTask, acknowledged } from './acknowledged.ts';
import { ControlledSessions } from './controlledSessions.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
const at = (minutes: number, seconds = 0) => new Date(Date.parse(T0) + minutes * 60_000 + seconds * 1000).toISOString();
const RETRY = { initialMs: 1000, maxMs: 4000 };

async function open(storage: MemoryStorage, attachClock: boolean) {
  const clock = createManualClock(T0);
  const sessions = new ControlledSessions(clock);
  const h = await harness({ clock, controller: sessions, storage, attachClock, config: { retry: RETRY } });
  return { h, sessions, clock };
}

const task = (tasks: AcknowledgedTask[], id: string) => tasks.find((t) => (t.record as { id: string }).id === id);
const receipts = (tasks: AcknowledgedTask[], id: string) =>
  (task(tasks, id)?.history ?? []).map((r) => (r as { scheduledAt: string }).scheduledAt);

async function reopenEquals(h: Harness, storage: MemoryStorage, expected: AcknowledgedTask[]) {
  await closeHarness(h);
  const again = await harness({ start: T0, storage });
  expect(await acknowledged(again.svc)).toEqual(expected);
}

describe('a flush that hangs, then fails', () => {
  it('other Sessions deliver and record meanwhile; the hung Session answers calls; it delivers once when it recovers', async () => {
    const storage = new MemoryStorage();
    const { h, sessions, clock } = await open(storage, false);
    const aOnce = await create(h, 'A', { after_seconds: 60 });
    const aEvery = await create(h, 'A', { every_seconds: 60 });
    const bEvery = await create(h, 'B', { every_seconds: 60 });
    const cOnce = await create(h, 'C', { after_seconds: 120 });
    sessions.holdFlushes('A');

    await clock.advance(60_000);
    await waitUntil(
      async () => sessions.heldFlushes('A') === 1 && receipts(await acknowledged(h.svc), bEvery.id).length === 1,
      "A's flush held and B's first receipt recorded",
    );
    const list = (await h.svc.callTool('A', 'schedule_list', {})) as Array<{ id: string; state: string }>;
    expect(list.map((v) => [v.id, v.state])).toEqual([
      [aOnce.id, 'overdue'],
      [aEvery.id, 'overdue'],
    ]);
    expect(
      await h.svc.callTool('A', 'schedule_create', { title: 't', prompt: 'p', daily: { time: '09:00:00', time_zone: 'UTC' } }),
    ).toMatchObject({
      kind: 'daily',
    });

    await clock.advance(60_000);
    await waitUntil(
      async () => receipts(await acknowledged(h.svc), cOnce.id).length === 1 && receipts(await acknowledged(h.svc), bEvery.id).length === 2,
      "C's receipt and B's second one recorded",
    );
    const during = await acknowledged(h.svc);
    expect(receipts(during, bEvery.id)).toEqual([at(1), at(2)]);
    expect(receipts(during, aOnce.id)).toEqual([]);
    expect(receipts(during, aEvery.id)).toEqual([]);
    expect(sessions.resolveCount('A')).toBe(1); // no second attempt while the first is in flight
    expect(sessions.messages('A')).toEqual([]);

    sessions.releaseFlushes('A', false);
    await h.svc.whenIdle();
    expect(await acknowledged(h.svc)).toEqual(during);
    h.clock.attach(h.svc);
    await tick(h, RETRY.initialMs);

    expect(sessions.distinctKeys('A')).toEqual([`${aOnce.id}@${at(1)}`, `${aEvery.id}@${at(2)}`]);
    const after = await acknowledged(h.svc);
    expect(receipts(after, aOnce.id)).toEqual([at(1)]);
    expect(receipts(after, aEvery.id)).toEqual([at(2)]);
    expect(task(after, aEvery.id)?.record).toMatchObject({ scheduledAt: at(3) });
    expect(sessions.messages('B').map((m) => m.wall)).toEqual([Date.parse(at(1)), Date.parse(at(2))]);
    await reopenEquals(h, storage, after);
  });
});

describe('resolveAgent rejecting for one Session while others are due', () => {
  it('the others are delivered on time, every time; the failing one is retried with backoff and then delivered once', async () => {
    const storage = new MemoryStorage();
    const { h, sessions } = await open(storage, true);
    const aEvery = await create(h, 'A', { every_seconds: 60 });
    const aOnce = await create(h, 'A', { after_seconds: 90 });
    const aDaily = await create(h, 'A', { daily: { time: '08:05:00', time_zone: 'UTC' } });
    const bEvery = await create(h, 'B', { every_seconds: 60 });
    const bOnce = await create(h, 'B', { after_seconds: 150 });
    const cCron = await create(h, 'C', { cron: { expression: '*/2 * * * *', time_zone: 'UTC' } });
    sessions.failResolve('A');

    for (let minute = 1; minute <= 10; minute++) await tick(h, 60_000);
    const during = await acknowledged(h.svc);
    const minutes = (from: number, to: number, step = 1) => Array.from({ length: (to - from) / step + 1 }, (_, i) => at(from + i * step));
    expect(receipts(during, bEvery.id)).toEqual(minutes(1, 10));
    expect(receipts(during, bOnce.id)).toEqual([at(2, 30)]);
    expect(receipts(during, cCron.id)).toEqual(minutes(2, 10, 2));
    for (const m of [...sessions.messages('B'), ...sessions.messages('C')]) {
      expect(m.keys.map((k) => Date.parse(k.split('@')[1] ?? ''))).toContain(m.wall); // appended at its own occurrence
    }
    for (const id of [aEvery.id, aOnce.id, aDaily.id]) expect(receipts(during, id)).toEqual([]);
    expect(sessions.messages('A')).toEqual([]);
    const attempts = sessions.resolveCount('A');
    // Each task backs off on its own (1 s, 2 s, then every 4 s), so the Session is tried about
    // three times per 4 s — but never in a tight loop.
    expect(attempts).toBeGreaterThan(600_000 / RETRY.maxMs);
    expect(attempts).toBeLessThanOrEqual(3 * (600_000 / RETRY.maxMs + 3));

    sessions.clear('A');
    await tick(h, RETRY.maxMs);
    const recovered = await acknowledged(h.svc);
    expect(receipts(recovered, aOnce.id)).toEqual([at(1, 30)]);
    expect(receipts(recovered, aEvery.id)).toEqual([at(10)]); // only the latest missed occurrence
    expect(receipts(recovered, aDaily.id)).toEqual([at(5)]);
    expect(sessions.distinctKeys('A')).toHaveLength(3);
    expect(sessions.messages('A')).toHaveLength(2); // the one-shot alone, the two recurring tasks in one batch
    await reopenEquals(h, storage, recovered);
  });
});
