// Restart: rows are decoded and actors spawned from them; committed targets are never recomputed;
// overdue tasks are delivered once each after a clean close.
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { closeAll, closeHarness, create, HOUR, harness, MINUTE, tempDir, tick } from '../support/harness.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';

describe('restore', () => {
  it('after a clean close, every overdue task of every kind is delivered exactly once', async () => {
    const path = join(tempDir(), 'schedule.json');
    const sessions = createFakeSessions();
    const first = await harness({ start: T0, sessions, storage: jsonFileStorage({ path }) });
    const tasks = [
      await create(first, 's1', { after_seconds: 600 }),
      await create(first, 's1', { at: '2030-01-01T08:30:00Z' }),
      await create(first, 's2', { every_seconds: 900 }),
      await create(first, 's2', { daily: { time: '09:00:00', time_zone: 'Europe/London' } }),
      await create(first, 's3', { weekly: { time: '08:45:00', time_zone: 'UTC', weekdays: [2] } }),
      await create(first, 's3', { cron: { expression: '*/20 * * * *', time_zone: 'Asia/Kolkata' } }),
    ];
    await closeHarness(first);

    const second = await harness({ clock: createManualClock('2030-01-01T12:00:00.000Z'), sessions, storage: jsonFileStorage({ path }) });
    await tick(second, 0);
    const delivered = (sid: string) => sessions.messages(sid).flatMap((m) => m.idempotencyKeys.map((k) => k.split('@')[0]));
    const all = [...delivered('s1'), ...delivered('s2'), ...delivered('s3')].sort();
    expect(all).toEqual(tasks.map((t) => t.id).sort());
    // one-shots ended; nothing more arrives for them, and recurring tasks continue normally
    await tick(second, 5 * MINUTE);
    expect(delivered('s1')).toHaveLength(2);
    const catalog = await second.svc.remote.catalog();
    expect(catalog.filter((e) => e.status === 'inactive').map((e) => e.record.id)).toEqual([tasks[0]!.id, tasks[1]!.id]);
    for (const entry of catalog) expect(entry.lastDelivery).toBeDefined();
  });

  it('a stored target is never recomputed on restore, even when it is not an occurrence of the rule', async () => {
    const storage = new MemoryStorage({
      version: 1,
      nextTaskNumber: 2,
      tasks: [
        {
          sessionId: 's1',
          status: 'active',
          record: {
            id: 'sch_1',
            kind: 'daily',
            title: 'Odd',
            prompt: 'p',
            scheduledAt: '2030-01-01T09:17:00.000Z',
            time: '09:00:00',
            timeZone: 'UTC',
          },
        },
      ],
    });
    const h = await harness({ start: T0, storage });
    expect(await h.svc.remote.list({ sessionId: 's1' })).toMatchObject([{ scheduledAt: '2030-01-01T09:17:00.000Z', state: 'scheduled' }]);
    await tick(h, HOUR + 17 * MINUTE);
    const [message] = h.sessions.messages('s1');
    expect(message?.idempotencyKeys).toEqual(['sch_1@2030-01-01T09:17:00.000Z']);
    expect(await h.svc.remote.list({ sessionId: 's1' })).toMatchObject([{ scheduledAt: '2030-01-02T09:00:00.000Z' }]);
  });

  it('inactive rows are kept as data: in the catalog, never delivered, their history readable', async () => {
    const storage = new MemoryStorage();
    const first = await harness({ start: T0, storage });
    const once = await create(first, 's1', { after_seconds: 60 });
    await tick(first, MINUTE);
    await first.svc.close();
    const second = await harness({ start: '2030-01-02T00:00:00.000Z', storage });
    await tick(second, HOUR);
    expect(second.sessions.messages('s1')).toEqual([]);
    const page = (await second.svc.remote.history({ sessionId: 's1', id: once.id, limit: 10 })) as { records: readonly unknown[] };
    expect(page.records).toHaveLength(1);
    expect(await second.svc.remote.list({ sessionId: 's1' })).toEqual([]);
  });
});
