// The remote namespace over HTTP against an in-process Host on a test clock: catalog and list,
// staged updates with `expected` (saved, conflict, not found, ended), delete, history paging,
// pause, resume and run now, and the error codes and statuses of refusals.
import type { CatalogEntry, ScheduleView } from '../../src/index.ts';
import { startTestHost, type TestHost } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

const daily = { title: 'Stand-up', prompt: 'collect notes', daily: { time: '09:00:00', time_zone: 'Europe/Berlin' } };

describe('remote namespace over HTTP', () => {
  it('GET /api/catalog lists active and inactive tasks with their Session; list has the active ones of one Session', async () => {
    await t.create('alpha', daily);
    await t.create('beta', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
    await t.advance(60_000);
    const catalog = await t.get<CatalogEntry[]>('/api/catalog');
    expect(catalog.status).toBe(200);
    expect(catalog.body.map((e) => [e.sessionId, e.record.title, e.status, e.lastDelivery !== undefined])).toEqual([
      ['alpha', 'Stand-up', 'active', false],
      ['beta', 'Tea', 'inactive', true],
    ]);
    expect((await t.get<ScheduleView[]>('/api/sessions/alpha/tasks')).body.map((v) => v.title)).toEqual(['Stand-up']);
    expect((await t.get<ScheduleView[]>('/api/sessions/beta/tasks')).body).toEqual([]);
  });

  it('PATCH with the record as expected saves a title and a new timing', async () => {
    const { body: view } = await t.create('alpha', daily);
    const [entry] = (await t.get<CatalogEntry[]>('/api/catalog')).body;
    const r = await t.send<ScheduleView>('PATCH', `/api/sessions/alpha/tasks/${view.id}`, {
      expected: entry?.record,
      title: 'Stand-up (moved)',
      change: { kind: 'cron', expression: '30 10 * * 1-5', time_zone: 'Asia/Shanghai' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: view.id, kind: 'cron', title: 'Stand-up (moved)', scheduledAt: '2030-01-08T02:30:00.000Z' });
  });

  it('PATCH with a stale expected record is schedule_conflict (409) and writes nothing', async () => {
    const { body: view } = await t.create('alpha', daily);
    const [entry] = (await t.get<CatalogEntry[]>('/api/catalog')).body;
    await t.send('PATCH', `/api/sessions/alpha/tasks/${view.id}`, { expected: entry?.record, title: 'First' });
    const r = await t.send('PATCH', `/api/sessions/alpha/tasks/${view.id}`, { expected: entry?.record, title: 'Second' });
    expect(r).toMatchObject({ status: 409, body: { code: 'schedule_conflict' } });
    expect((await t.get<CatalogEntry[]>('/api/catalog')).body[0]?.record.title).toBe('First');
  });

  it('PATCH of another Session’s task is schedule_not_found (404); of an ended one schedule_ended (409)', async () => {
    const { body: view } = await t.create('alpha', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
    const [entry] = (await t.get<CatalogEntry[]>('/api/catalog')).body;
    const wrong = await t.send('PATCH', `/api/sessions/beta/tasks/${view.id}`, { expected: entry?.record, title: 'x' });
    expect(wrong).toMatchObject({ status: 404, body: { code: 'schedule_not_found' } });
    await t.advance(60_000);
    const ended = await t.send('PATCH', `/api/sessions/alpha/tasks/${view.id}`, { expected: entry?.record, title: 'x' });
    expect(ended).toMatchObject({ status: 409, body: { code: 'schedule_ended' } });
  });

  it('PATCH refuses ids in the body and non-object bodies without touching the task', async () => {
    const { body: view } = await t.create('alpha', daily);
    const r = await t.send('PATCH', `/api/sessions/alpha/tasks/${view.id}`, { id: 'other', expected: {} });
    expect(r).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect((await t.send('PATCH', `/api/sessions/alpha/tasks/${view.id}`, '[1]')).body).toMatchObject({ code: 'invalid_request' });
    const missing = await t.send('PATCH', `/api/sessions/alpha/tasks/${view.id}`, { title: 'x' });
    expect(missing).toMatchObject({ status: 400, body: { code: 'invalid_selector' } });
  });

  it('DELETE removes the task; a second DELETE answers {deleted:false, code:"schedule_not_found"} with 404', async () => {
    const { body: view } = await t.create('alpha', daily);
    expect(await t.send('DELETE', `/api/sessions/alpha/tasks/${view.id}`)).toEqual({ status: 200, body: { id: view.id, deleted: true } });
    expect(await t.send('DELETE', `/api/sessions/alpha/tasks/${view.id}`)).toEqual({
      status: 404,
      body: { id: view.id, deleted: false, code: 'schedule_not_found', message: expect.stringContaining(view.id) },
    });
    expect((await t.get('/api/catalog')).body).toEqual([]);
    expect((await t.get(`/api/sessions/alpha/tasks/${view.id}/history`)).status).toBe(404);
  });

  it('history pages newest first with limit and before; a bad limit is invalid_rule, an unknown cursor delivery_cursor_not_found', async () => {
    const { body: view } = await t.create('alpha', { title: 'Tick', prompt: 'tick', every_seconds: 60 });
    for (let i = 0; i < 3; i++) await t.advance(60_000);
    const base = `/api/sessions/alpha/tasks/${view.id}/history`;
    const first = await t.get<{ records: Array<{ messageId: string }>; nextBefore?: string }>(`${base}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.records.map((r) => r.messageId)).toEqual(['msg-3', 'msg-2']);
    expect(first.body.nextBefore).toBe('msg-2');
    const second = await t.get<{ records: Array<{ messageId: string }>; nextBefore?: string }>(`${base}?limit=2&before=msg-2`);
    expect(second.body.records.map((r) => r.messageId)).toEqual(['msg-1']);
    expect(second.body.nextBefore).toBeUndefined();
    expect((await t.get(`${base}`)).body).toMatchObject({ retention: { days: 30, records: 200 } });
    expect(await t.get(`${base}?limit=0`)).toMatchObject({ status: 400, body: { code: 'invalid_rule' } });
    expect(await t.get(`${base}?limit=ten`)).toMatchObject({ status: 400, body: { code: 'invalid_rule' } });
    expect(await t.get(`${base}?before=msg-99`)).toMatchObject({ status: 400, body: { code: 'delivery_cursor_not_found' } });
  });

  it('POST …/pause keeps a task from firing; …/resume moves a recurring one past the occurrences it missed', async () => {
    const { body: view } = await t.create('alpha', { title: 'Tick', prompt: 'tick', every_seconds: 60 });
    const task = `/api/sessions/alpha/tasks/${view.id}`;
    const paused = await t.send<ScheduleView>('POST', `${task}/pause`);
    expect(paused).toEqual({
      status: 200,
      body: { ...view, state: 'paused', pausedAt: '2030-01-07T08:00:00.000Z' },
    });
    await t.advance(150_000);
    expect((await t.get<{ records: unknown[] }>(`${task}/history`)).body.records).toEqual([]);
    expect((await t.get<CatalogEntry>(task)).body).toMatchObject({ status: 'active', pausedAt: '2030-01-07T08:00:00.000Z' });
    expect((await t.get<ScheduleView[]>('/api/sessions/alpha/tasks')).body.map((v) => v.state)).toEqual(['paused']);
    // Pausing a paused task answers it as it is.
    expect((await t.send<ScheduleView>('POST', `${task}/pause`)).body.pausedAt).toBe('2030-01-07T08:00:00.000Z');
    const resumed = await t.send<ScheduleView>('POST', `${task}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ state: 'scheduled', scheduledAt: '2030-01-07T08:03:00.000Z' });
    expect(resumed.body.pausedAt).toBeUndefined();
    await t.advance(30_000);
    expect((await t.get<{ records: Array<{ scheduledAt: string }> }>(`${task}/history`)).body.records).toMatchObject([
      { scheduledAt: '2030-01-07T08:03:00.000Z' },
    ]);
  });

  it('POST …/pause takes an optional JSON body {note}: the note is shown until …/resume; a bad one is refused', async () => {
    const { body: view } = await t.create('alpha', { title: 'Tick', prompt: 'tick', every_seconds: 60 });
    const task = `/api/sessions/alpha/tasks/${view.id}`;
    expect(await t.send('POST', `${task}/pause`, { note: 'x'.repeat(501) })).toMatchObject({
      status: 400,
      body: { code: 'invalid_selector' },
    });
    expect(await t.send('POST', `${task}/pause`, { note: 'why', id: 'sch_9' })).toMatchObject({
      status: 400,
      body: { code: 'invalid_request' },
    });
    expect((await t.get<CatalogEntry>(task)).body.pausedAt).toBeUndefined();
    const paused = await t.send<ScheduleView>('POST', `${task}/pause`, { note: 'Vendor outage' });
    expect(paused).toMatchObject({ status: 200, body: { state: 'paused', pauseNote: 'Vendor outage' } });
    expect((await t.get<CatalogEntry>(task)).body.pauseNote).toBe('Vendor outage');
    expect((await t.get<CatalogEntry[]>('/api/catalog')).body[0]?.pauseNote).toBe('Vendor outage');
    const resumed = await t.send<ScheduleView>('POST', `${task}/resume`);
    expect(resumed.body.pauseNote).toBeUndefined();
    expect((await t.get<CatalogEntry>(task)).body).not.toHaveProperty('pauseNote');
  });

  it('POST …/trigger delivers a paused task once at once, with a manual receipt, and keeps it paused', async () => {
    const { body: view } = await t.create('alpha', daily);
    const task = `/api/sessions/alpha/tasks/${view.id}`;
    await t.send('POST', `${task}/pause`);
    const triggered = await t.send<ScheduleView>('POST', `${task}/trigger`);
    expect(triggered).toMatchObject({ status: 200, body: { id: view.id, state: 'paused', scheduledAt: view.scheduledAt } });
    await t.advance(0);
    const history = await t.get<{ records: unknown[] }>(`${task}/history`);
    expect(history.body.records).toEqual([
      {
        scheduledAt: '2030-01-07T08:00:00.000Z',
        deliveredAt: '2030-01-07T08:00:00.000Z',
        messageId: 'msg-1',
        prompt: 'collect notes',
        trigger: 'manual',
      },
    ]);
    expect((await t.get<CatalogEntry>(task)).body).toMatchObject({
      pausedAt: '2030-01-07T08:00:00.000Z',
      record: { scheduledAt: view.scheduledAt },
    });
  });

  it.each(['pause', 'resume', 'trigger'])(
    'POST …/%s refuses a missing task (404), an ended one (409) and a bad Session id (400)',
    async (action) => {
      const { body: view } = await t.create('alpha', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
      expect(await t.send('POST', `/api/sessions/beta/tasks/${view.id}/${action}`)).toMatchObject({
        status: 404,
        body: { code: 'schedule_not_found', message: expect.stringContaining(view.id) },
      });
      expect(await t.send('POST', `/api/sessions/alpha/tasks/sch_9/${action}`)).toMatchObject({
        status: 404,
        body: { code: 'schedule_not_found' },
      });
      await t.advance(60_000);
      expect(await t.send('POST', `/api/sessions/alpha/tasks/${view.id}/${action}`)).toMatchObject({
        status: 409,
        body: { code: 'schedule_ended', message: expect.any(String) },
      });
      expect(await t.send('POST', `/api/sessions/.hidden/tasks/${view.id}/${action}`)).toMatchObject({
        status: 400,
        body: { code: 'invalid_session_id' },
      });
    },
  );

  it('PATCH with paused: true pauses and paused: false resumes, alongside other edits', async () => {
    const { body: view } = await t.create('alpha', daily);
    const task = `/api/sessions/alpha/tasks/${view.id}`;
    const [entry] = (await t.get<CatalogEntry[]>('/api/catalog')).body;
    const paused = await t.send<ScheduleView>('PATCH', task, { expected: entry?.record, title: 'Quiet', paused: true });
    expect(paused).toMatchObject({ status: 200, body: { title: 'Quiet', state: 'paused', pausedAt: '2030-01-07T08:00:00.000Z' } });
    const current = (await t.get<CatalogEntry>(task)).body.record;
    const resumed = await t.send<ScheduleView>('PATCH', task, { expected: current, paused: false });
    expect(resumed).toMatchObject({ status: 200, body: { state: 'scheduled' } });
    expect(await t.send('PATCH', task, { expected: current, paused: 'yes' })).toMatchObject({
      status: 400,
      body: { code: 'invalid_selector' },
    });
  });

  it('refuses Session ids that are not safe file names with invalid_session_id', async () => {
    for (const id of ['..x', '.hidden', 'a%2Fb', 'x'.repeat(65)]) {
      expect(await t.get(`/api/sessions/${id}/tasks`)).toMatchObject({ status: 400, body: { code: 'invalid_session_id' } });
    }
    expect(await t.create('.hidden', daily)).toMatchObject({ status: 400, body: { code: 'invalid_session_id' } });
  });

  it('GET /api/sessions lists Sessions with tasks or transcripts', async () => {
    await t.create('beta', daily);
    await t.create('alpha', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
    await t.advance(60_000);
    expect((await t.get('/api/sessions')).body).toEqual(['alpha', 'beta']);
  });
});
