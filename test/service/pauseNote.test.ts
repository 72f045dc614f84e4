// A pause may carry a note (docs/management.md): `remote.pause({note})` and `remote.update({paused:
// true, pauseNote})` store it beside `pausedAt`, every view of the task shows it, a resume (or the
// run-now delivery that ends a one-shot) drops it, it survives a restart, a bad one is refused
// with `invalid_selector`, and a retried pause with another note is `idempotency_conflict`.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { CatalogEntry, ScheduleView } from '../../src/domain/tasks/types.ts';
import { closeAll, closeHarness, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';
const NOTE = 'Waiting for the vendor to fix the webhook (ticket 4711).';

describe('pause notes', () => {
  it('a note given to pause is shown by the view, get, catalog and schedule_list, and dropped by resume', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage });
    const task = await create(h, 's1', { every_seconds: 60 });
    const paused = (await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: `  ${NOTE}\n` })) as ScheduleView;
    expect(paused).toMatchObject({ state: 'paused', pausedAt: T0, pauseNote: NOTE });
    expect(await h.svc.remote.get({ sessionId: 's1', id: task.id })).toMatchObject({ pausedAt: T0, pauseNote: NOTE });
    const [entry] = (await h.svc.remote.catalog()) as CatalogEntry[];
    expect(entry?.pauseNote).toBe(NOTE);
    expect(await h.svc.callTool('s1', 'schedule_list', {})).toEqual([expect.objectContaining({ state: 'paused', pauseNote: NOTE })]);
    expect((storage.document() as { tasks: Array<{ pauseNote?: string }> }).tasks[0]?.pauseNote).toBe(NOTE);

    const resumed = (await h.svc.remote.resume({ sessionId: 's1', id: task.id })) as ScheduleView;
    expect(resumed.pausedAt).toBeUndefined();
    expect(resumed.pauseNote).toBeUndefined();
    expect((await h.svc.remote.get({ sessionId: 's1', id: task.id })) as CatalogEntry).not.toHaveProperty('pauseNote');
  });

  it('pausing a paused task with another note replaces the note and keeps the pause instant; without one changes nothing', async () => {
    const h = await harness({ start: T0 });
    const task = await create(h, 's1', { every_seconds: 60 });
    await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: 'first' });
    await tick(h, 10_000);
    expect(await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: 'second' })).toMatchObject({ pausedAt: T0, pauseNote: 'second' });
    const changes = h.changes.length;
    expect(await h.svc.remote.pause({ sessionId: 's1', id: task.id })).toMatchObject({ pausedAt: T0, pauseNote: 'second' });
    expect(h.changes).toHaveLength(changes);
  });

  it('remote.update takes pauseNote beside paused: true, and refuses it otherwise', async () => {
    const h = await harness({ start: T0 });
    const task = await create(h, 's1', { every_seconds: 60 });
    const entry = (await h.svc.remote.get({ sessionId: 's1', id: task.id })) as CatalogEntry;
    const request = { sessionId: 's1', id: task.id, expected: entry.record };
    expect(await h.svc.remote.update({ ...request, pauseNote: 'why' })).toMatchObject({ code: 'invalid_selector' });
    expect(await h.svc.remote.update({ ...request, paused: false, pauseNote: 'why' })).toMatchObject({ code: 'invalid_selector' });
    expect(await h.svc.remote.update({ ...request, title: 'Renamed', paused: true, pauseNote: NOTE })).toMatchObject({
      title: 'Renamed',
      state: 'paused',
      pauseNote: NOTE,
    });
    const renamed = (await h.svc.remote.get({ sessionId: 's1', id: task.id })) as CatalogEntry;
    expect(await h.svc.remote.update({ ...request, expected: renamed.record, paused: false })).not.toHaveProperty('pauseNote');
  });

  it('a note that is not a string of 1 to 500 characters is refused with invalid_selector and nothing is paused', async () => {
    const h = await harness({ start: T0 });
    const task = await create(h, 's1', { every_seconds: 60 });
    for (const note of ['', '   ', 'x'.repeat(501), 42, null, ['a']]) {
      const answer = await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: note as string });
      expect(answer).toMatchObject({ code: 'invalid_selector' });
    }
    expect(await h.svc.remote.get({ sessionId: 's1', id: task.id })).not.toHaveProperty('pausedAt');
    expect(await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: 'x'.repeat(500) })).toMatchObject({ state: 'paused' });
  });

  it('a retried pause with the same note answers the first answer; with another note it is idempotency_conflict', async () => {
    const h = await harness({ start: T0 });
    const task = await create(h, 's1', { every_seconds: 60 });
    const first = await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: 'a' }, { callId: 'key-1' });
    expect(await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: 'a' }, { callId: 'key-1' })).toEqual(first);
    expect(await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: 'b' }, { callId: 'key-1' })).toMatchObject({
      code: 'idempotency_conflict',
    });
    expect(await h.svc.remote.pause({ sessionId: 's1', id: task.id }, { callId: 'key-1' })).toMatchObject({ code: 'idempotency_conflict' });
    expect(await h.svc.remote.get({ sessionId: 's1', id: task.id })).toMatchObject({ pauseNote: 'a' });
  });

  it('the note survives a restart, and a run-now delivery of a paused recurring task keeps it', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ start: T0, storage });
    const task = await create(h, 's1', { every_seconds: 3600 });
    await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: NOTE });
    await closeHarness(h);
    const again = await harness({ clock: h.clock, sessions: h.sessions, storage });
    expect(await again.svc.remote.get({ sessionId: 's1', id: task.id })).toMatchObject({ pausedAt: T0, pauseNote: NOTE });
    await again.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await tick(again, 0);
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(await again.svc.remote.get({ sessionId: 's1', id: task.id })).toMatchObject({ pausedAt: T0, pauseNote: NOTE });
  });

  it('the run-now delivery that ends a paused one-shot drops its pause and its note', async () => {
    const h = await harness({ start: T0 });
    const task = await create(h, 's1', { after_seconds: 3600 });
    await h.svc.remote.pause({ sessionId: 's1', id: task.id, note: NOTE });
    await h.svc.remote.trigger({ sessionId: 's1', id: task.id });
    await tick(h, MINUTE);
    const entry = (await h.svc.remote.get({ sessionId: 's1', id: task.id })) as CatalogEntry;
    expect(entry.status).toBe('inactive');
    expect(entry).not.toHaveProperty('pausedAt');
    expect(entry).not.toHaveProperty('pauseNote');
  });
});
