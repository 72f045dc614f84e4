// Time-zone data drift through the service: the recorded data version, the open warning, the
// `remote.drift` report across a restart, and `remote.reanchor` one task at a time and in bulk.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonFileStorage } from '../../src/adapters/jsonFileStorage.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { decodeBatch, decodeDocument } from '../../src/domain/codec/index.ts';
import { currentTzdata } from '../../src/runtime/tzdataVersion.ts';
import { closeAll, closeHarness, create, harness, tempDir } from '../support/harness.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
const TZ = currentTzdata();

/** A stored daily 09:00 Paris task whose target older data would have put at 08:00 Paris. */
const driftedDaily = (n: number, sessionId = 's1', status = 'active') => ({
  sessionId,
  status,
  record: {
    id: `sch_${n}`,
    kind: 'daily',
    title: `Plan ${n}`,
    prompt: 'Plan the day',
    scheduledAt: '2030-01-02T07:00:00.000Z',
    time: '09:00:00',
    timeZone: 'Europe/Paris',
  },
});

const documentWith = (tasks: unknown[], extra: Record<string, unknown> = {}) => ({
  version: 1,
  nextTaskNumber: tasks.length + 1,
  ...extra,
  tasks,
});

describe('time-zone data version in the domain', () => {
  it('is written on the first commit after an open with another version, and not before', async () => {
    const storage = memoryStorage(documentWith([], { tzdata: '1999z' }));
    const h = await harness({ start: T0, storage });
    expect(storage.document()).toMatchObject({ tzdata: '1999z' });
    const warns = h.logs.filter((l) => l.level === 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0]?.data).toEqual({ drifted: 0, tzdata: TZ, writtenWith: '1999z' });
    expect(await h.svc.remote.drift()).toEqual({ tzdata: TZ, writtenWith: '1999z', tasks: [] });
    await create(h, 's1', { after_seconds: 60 });
    expect(storage.document()).toMatchObject({ tzdata: TZ });
    expect(await h.svc.remote.drift()).toEqual({ tzdata: TZ, writtenWith: TZ, tasks: [] });
  });

  it('a fresh domain records none until it is written, and opening one logs no warning', async () => {
    const storage = memoryStorage();
    const h = await harness({ start: T0, storage });
    expect(await h.svc.remote.drift()).toEqual({ tzdata: TZ, tasks: [] });
    expect(storage.document()).not.toHaveProperty('tzdata');
    expect(h.logs).toEqual([]);
  });

  it('the strict codec refuses a tzdata member that is not a non-empty string, in the document and in a journal line', () => {
    for (const bad of [5, '', null, ['2025c']]) {
      expect(() => decodeDocument({ version: 1, tzdata: bad, tasks: [] })).toThrow(/tzdata/);
      expect(() => decodeBatch({ version: 1, puts: [], deletes: [], tzdata: bad }, 'journal line 1')).toThrow(/tzdata/);
    }
    expect(decodeDocument({ version: 1, tzdata: '2025c', tasks: [] }).tzdata).toBe('2025c');
    expect(decodeBatch({ version: 1, puts: [], deletes: [], tzdata: '2025c' }, 'journal line 1').tzdata).toBe('2025c');
  });

  it('a stored document with a bad tzdata does not open', async () => {
    const storage = memoryStorage(documentWith([], { tzdata: 7 }));
    await expect(storage.open()).rejects.toMatchObject({ code: 'corrupt_schedule_log' });
  });
});

describe('remote.drift and remote.reanchor', () => {
  it('an open with drifted targets warns once with the count, and the report is the same after a restart', async () => {
    const path = join(tempDir(), 'schedule.json');
    writeFileSync(path, JSON.stringify(documentWith([driftedDaily(1), driftedDaily(2, 's2')], { tzdata: TZ })));
    const first = await harness({ start: T0, storage: jsonFileStorage({ path }) });
    const warns = first.logs.filter((l) => l.level === 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0]?.data).toEqual({ drifted: 2, tzdata: TZ, writtenWith: TZ });
    const report = await first.svc.remote.drift();
    expect(report.tasks.map((t) => [t.sessionId, t.id])).toEqual([
      ['s1', 'sch_1'],
      ['s2', 'sch_2'],
    ]);
    await closeHarness(first);
    const second = await harness({ start: '2030-01-01T09:00:00.000Z', storage: jsonFileStorage({ path }) });
    expect(await second.svc.remote.drift()).toEqual(report);
  });

  it('a task whose target an update moved is not reported', async () => {
    const storage = memoryStorage(documentWith([driftedDaily(1)]));
    const h = await harness({ start: T0, storage });
    expect((await h.svc.remote.drift()).tasks).toHaveLength(1);
    const entry = await h.svc.remote.get({ sessionId: 's1', id: 'sch_1' });
    if ('code' in entry) throw new Error(entry.message);
    const updated = await h.svc.remote.update({
      sessionId: 's1',
      id: 'sch_1',
      expected: entry.record,
      change: { kind: 'daily', time: '10:00:00', time_zone: 'Europe/Paris' },
    });
    // The update computes the new target with the current data: 10:00 Paris today.
    expect(updated).toMatchObject({ scheduledAt: '2030-01-01T09:00:00.000Z' });
    expect((await h.svc.remote.drift()).tasks).toEqual([]);
  });

  it('re-anchors to the first occurrence after now; refuses missing and ended tasks and bad requests', async () => {
    const storage = memoryStorage(documentWith([driftedDaily(1), driftedDaily(2, 's1', 'inactive')]));
    const h = await harness({ start: '2030-01-02T08:30:00.000Z', storage });
    const fixed = await h.svc.remote.reanchor({ sessionId: 's1', id: 'sch_1' });
    // 08:00 UTC today has passed: the first occurrence after now is tomorrow's.
    expect(fixed).toMatchObject({ id: 'sch_1', scheduledAt: '2030-01-03T08:00:00.000Z' });
    expect(h.changes).toEqual([{ type: 'schedule/changed', sessionId: 's1', ids: ['sch_1'] }]);
    expect(await h.svc.remote.reanchor({ sessionId: 's1', id: 'sch_2' })).toMatchObject({ code: 'schedule_ended' });
    expect(await h.svc.remote.reanchor({ sessionId: 's1', id: 'sch_9' })).toMatchObject({ code: 'schedule_not_found' });
    expect(await h.svc.remote.reanchor({ sessionId: 's1', ids: ['sch_1', 'sch_9'] })).toMatchObject({ code: 'schedule_not_found' });
    for (const bad of [null, { sessionId: 's1' }, { all: 'yes' }, { all: true, id: 'sch_1' }, { sessionId: 's1', id: 'sch_1', extra: 1 }]) {
      expect(await h.svc.remote.reanchor(bad as never)).toMatchObject({ code: 'invalid_selector' });
    }
    expect(await h.svc.remote.drift()).toMatchObject({ tasks: [] });
  });

  it('re-anchors 10,000 drifted tasks in one bulk call: one write and one notification per Session', async () => {
    const tasks = Array.from({ length: 10_000 }, (_, i) => driftedDaily(i + 1, `s${i % 3}`));
    const storage = memoryStorage(documentWith(tasks));
    const h = await harness({ start: T0, storage });
    const commits = storage.commitCount;
    const result = await h.svc.remote.reanchor({ all: true });
    if ('code' in result) throw new Error(result.message);
    expect(result.reanchored).toHaveLength(10_000);
    expect(new Set(result.reanchored.map((v) => v.scheduledAt))).toEqual(new Set(['2030-01-02T08:00:00.000Z']));
    expect(storage.commitCount).toBe(commits + 1);
    expect(h.changes.map((c) => [c.sessionId, c.ids.length]).sort()).toEqual([
      ['s0', 3334],
      ['s1', 3333],
      ['s2', 3333],
    ]);
    expect((await h.svc.remote.drift()).tasks).toEqual([]);
    // Nothing left to move: no write, no notification.
    expect(await h.svc.remote.reanchor({ all: true })).toEqual({ reanchored: [] });
    expect(storage.commitCount).toBe(commits + 1);
    expect(h.changes).toHaveLength(3);
  });

  it('remote.drift({limit}) answers the first drifted tasks in the report’s order and how many there are; bad requests are refused', async () => {
    // Winter targets on 61 days (several tasks a day), stored in reverse; every fifth task ended (not drifted).
    const tasks = Array.from({ length: 300 }, (_, i) => {
      const n = 300 - i;
      const task = driftedDaily(n, `s${i % 7}`, n % 5 === 0 ? 'inactive' : 'active');
      const day = new Date(Date.parse('2030-01-02T07:00:00.000Z') + (n % 61) * 86_400_000).toISOString();
      return { ...task, record: { ...task.record, scheduledAt: day } };
    });
    const h = await harness({ start: T0, storage: memoryStorage(documentWith(tasks)) });
    const whole = await h.svc.remote.drift();
    expect(whole.tasks).toHaveLength(240);
    const page = await h.svc.remote.drift({ limit: 50 });
    if ('code' in page) throw new Error(page.message);
    expect(page).toEqual({ tzdata: TZ, total: 240, tasks: whole.tasks.slice(0, 50) });
    expect(page.tasks.slice(0, 4).map((t) => t.id)).toEqual(['sch_61', 'sch_122', 'sch_183', 'sch_244']);
    expect(await h.svc.remote.drift({ limit: 500 })).toEqual({ tzdata: TZ, total: 240, tasks: whole.tasks });
    for (const limit of [0, 501, 1.5, '5']) {
      expect(await h.svc.remote.drift({ limit } as never)).toMatchObject({ code: 'invalid_rule' });
    }
    for (const bad of [null, [], { limit: 5, sessionId: 's1' }]) {
      expect(await h.svc.remote.drift(bad as never)).toMatchObject({ code: 'invalid_selector' });
    }
  });

  it('a bulk call for one Session moves only that Session’s drifted tasks', async () => {
    const storage = memoryStorage(documentWith([driftedDaily(1), driftedDaily(2, 's2'), driftedDaily(3)]));
    const h = await harness({ start: T0, storage });
    const result = await h.svc.remote.reanchor({ sessionId: 's1', ids: ['sch_1', 'sch_3', 'sch_1'] });
    if ('code' in result) throw new Error(result.message);
    expect(result.reanchored.map((v) => v.id)).toEqual(['sch_1', 'sch_3']);
    expect(h.changes).toEqual([{ type: 'schedule/changed', sessionId: 's1', ids: ['sch_1', 'sch_3'] }]);
    expect((await h.svc.remote.drift()).tasks.map((t) => t.id)).toEqual(['sch_2']);
  });
});
