// Tool calls as a Session makes them, the tool definitions, and occurrence previews (of a rule
// being typed and of a stored task), over HTTP against an in-process Host on a test clock.
import type { PreviewOccurrence, ScheduleView } from '../../src/index.ts';
import { startTestHost, type TestHost } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

describe('tool calls over HTTP', () => {
  it('GET /api/tools is the service’s tool definitions with their JSON Schemas', async () => {
    const r = await t.get<Array<{ name: string }>>('/api/tools');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(t.host.service.toolDefinitions)));
    expect(r.body.map((d) => d.name)).toEqual(['schedule_create', 'schedule_list', 'schedule_update', 'schedule_delete']);
  });

  it('schedule_create with a cron rule in a zone answers the view', async () => {
    const r = await t.create('demo', {
      title: 'Build',
      prompt: 'check the build',
      cron: { expression: '*/15 9-17 * * 1-5', time_zone: 'Asia/Shanghai' },
    });
    expect(r).toEqual({
      status: 200,
      body: {
        id: r.body.id,
        kind: 'cron',
        title: 'Build',
        prompt: 'check the build',
        scheduledAt: '2030-01-07T08:15:00.000Z',
        expression: '*/15 9-17 * * 1-5',
        timeZone: 'Asia/Shanghai',
        state: 'scheduled',
        deliveryMode: 'host',
      },
    });
  });

  it('a refused create answers the error code with 400 and stores nothing', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 'x', prompt: 'y', cron: { expression: '0 9 * * MON', time_zone: 'UTC' } }, 'invalid_rule'],
      [{ title: 'x', prompt: 'y', daily: { time: '09:00:00', time_zone: 'EST' } }, 'invalid_time_zone'],
      [{ title: 'x', prompt: 'y', after_seconds: 60, every_seconds: 60 }, 'invalid_selector'],
      [{ title: '', prompt: 'y', after_seconds: 60 }, 'invalid_prompt'],
      [{ title: 'x', prompt: 'y', at: '2020-01-01T00:00:00Z' }, 'not_future'],
    ];
    for (const [args, code] of cases) expect(await t.create('demo', args)).toMatchObject({ status: 400, body: { code } });
    expect((await t.get('/api/catalog')).body).toEqual([]);
  });

  it('schedule_list and schedule_delete with an empty body and with arguments', async () => {
    const { body: view } = await t.create('demo', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
    const list = await t.send<ScheduleView[]>('POST', '/api/sessions/demo/tools/schedule_list');
    expect(list.body.map((v) => v.id)).toEqual([view.id]);
    expect((await t.send('POST', '/api/sessions/other/tools/schedule_delete', { id: view.id })).body).toEqual({
      id: view.id,
      deleted: false,
      code: 'schedule_not_found',
    });
    expect((await t.send('POST', '/api/sessions/demo/tools/schedule_delete', { id: view.id })).body).toEqual({
      id: view.id,
      deleted: true,
    });
  });

  it('an unknown tool is unknown_tool', async () => {
    expect(await t.send('POST', '/api/sessions/demo/tools/schedule_explode', {})).toMatchObject({
      status: 404,
      body: { code: 'unknown_tool' },
    });
  });
});

describe('previews over HTTP', () => {
  it('POST /api/preview: daily 02:30 in Europe/Berlin skips 2030-03-31 and says why', async () => {
    const r = await t.send<PreviewOccurrence[]>('POST', '/api/preview', {
      daily: { time: '02:30:00', time_zone: 'Europe/Berlin' },
      from: '2030-03-30T12:00:00Z',
      count: 2,
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      {
        at: '2030-04-01T00:30:00.000Z',
        local: '2030-04-01T02:30:00',
        offset: '+02:00',
        notes: ['02:30 does not exist on 2030-03-31 (the clock jumps forward from 02:00 to 03:00); skipped'],
      },
      { at: '2030-04-02T00:30:00.000Z', local: '2030-04-02T02:30:00', offset: '+02:00', notes: [] },
    ]);
  });

  it('POST /api/preview starts at the Host clock by default and refuses bad rules with their codes', async () => {
    const every = await t.send<PreviewOccurrence[]>('POST', '/api/preview', { every_seconds: 3600, count: 1 });
    expect(every.body.map((o) => o.at)).toEqual(['2030-01-07T09:00:00.000Z']);
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ cron: { expression: '0 0 30 2 *', time_zone: 'UTC' } }, 'time_out_of_range'],
      [{ cron: { expression: '* * *', time_zone: 'UTC' } }, 'invalid_rule'],
      [{ weekly: { time: '09:00:00', time_zone: 'Mars/Olympus', weekdays: [1] } }, 'invalid_time_zone'],
      [{ weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [1, 1] } }, 'invalid_rule'],
      [{ daily: { time: '25:00:00', time_zone: 'UTC' } }, 'invalid_rule'],
      [{ every_seconds: 59 }, 'invalid_rule'],
      [{ after_seconds: 60 }, 'invalid_selector'],
      [{ every_seconds: 60, count: 51 }, 'invalid_rule'],
      [{ every_seconds: 60, from: 'yesterday' }, 'invalid_selector'],
    ];
    for (const [body, code] of refusals) expect(await t.send('POST', '/api/preview', body)).toMatchObject({ status: 400, body: { code } });
  });

  it('a task preview starts with its committed target; an ended task has none', async () => {
    const { body: cron } = await t.create('demo', { title: 'c', prompt: 'c', cron: { expression: '0 9 * * *', time_zone: 'Asia/Tokyo' } });
    const r = await t.get<PreviewOccurrence[]>(`/api/sessions/demo/tasks/${cron.id}/preview?count=3`);
    expect(r.body.map((o) => o.at)).toEqual([cron.scheduledAt, '2030-01-09T00:00:00.000Z', '2030-01-10T00:00:00.000Z']);
    const { body: every } = await t.create('demo', { title: 'e', prompt: 'e', every_seconds: 600 });
    expect((await t.get<PreviewOccurrence[]>(`/api/sessions/demo/tasks/${every.id}/preview?count=2`)).body.map((o) => o.at)).toEqual([
      '2030-01-07T08:10:00.000Z',
      '2030-01-07T08:20:00.000Z',
    ]);
    const { body: once } = await t.create('demo', { title: 'o', prompt: 'o', after_seconds: 30 });
    expect((await t.get<PreviewOccurrence[]>(`/api/sessions/demo/tasks/${once.id}/preview`)).body.map((o) => o.at)).toEqual([
      once.scheduledAt,
    ]);
    await t.advance(30_000);
    expect((await t.get(`/api/sessions/demo/tasks/${once.id}/preview`)).body).toEqual([]);
    expect(await t.get('/api/sessions/demo/tasks/sch_99/preview')).toMatchObject({ status: 404, body: { code: 'schedule_not_found' } });
  });
});
