// The HTTP API's `Idempotency-Key` header (SPEC §15): a tool call or a remote write retried with
// the same key answers the first answer and changes nothing; the same key on another request is
// 422 `idempotency_conflict`; a key that is too long is refused like a bad `callId`.
import type { ScheduleView } from '../../src/index.ts';
import { startTestHost, type TestHost } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

const args = { title: 'Build', prompt: 'check the build', after_seconds: 600 };
const tasksOf = async (sessionId: string) => (await t.get<ScheduleView[]>(`/api/sessions/${sessionId}/tasks`)).body;

describe('Idempotency-Key over HTTP', () => {
  it('a create retried with its key answers the first view and makes one task', async () => {
    const path = '/api/sessions/demo/tools/schedule_create';
    const first = await t.send<ScheduleView>('POST', path, args, { 'Idempotency-Key': 'retry-1' });
    const again = await t.send<ScheduleView>('POST', path, args, { 'Idempotency-Key': 'retry-1' });
    expect(first.status).toBe(200);
    expect(again).toEqual(first);
    expect(await tasksOf('demo')).toHaveLength(1);
    const other = await t.send('POST', path, { ...args, title: 'Other' }, { 'Idempotency-Key': 'retry-1' });
    expect(other).toMatchObject({ status: 422, body: { code: 'idempotency_conflict' } });
    expect(await t.send('POST', path, args, { 'Idempotency-Key': 'x'.repeat(300) })).toMatchObject({
      status: 400,
      body: { code: 'invalid_selector' },
    });
  });

  it('a run now retried with its key is one run now; a delete retried with its key answers the first answer', async () => {
    const view = (await t.create('demo', { ...args, after_seconds: undefined, every_seconds: 3600 })).body;
    const trigger = `/api/sessions/demo/tasks/${view.id}/trigger`;
    const first = await t.send('POST', trigger, undefined, { 'Idempotency-Key': 'run-1' });
    expect(await t.send('POST', trigger, undefined, { 'Idempotency-Key': 'run-1' })).toEqual(first);
    await t.advance(0);
    const history = await t.get<{ records: unknown[] }>(`/api/sessions/demo/tasks/${view.id}/history`);
    expect(history.body.records).toHaveLength(1);
    const path = `/api/sessions/demo/tasks/${view.id}`;
    const deleted = await t.send('DELETE', path, undefined, { 'Idempotency-Key': 'del-1' });
    expect(deleted).toMatchObject({ status: 200, body: { id: view.id, deleted: true } });
    expect(await t.send('DELETE', path, undefined, { 'Idempotency-Key': 'del-1' })).toEqual(deleted);
  });
});
