// `GET /api/counts` and `POST /api/bulk` of the reference Host: the counts of the whole schedule
// and of one Session, a bad query refused with 400; a bulk pause by filter and its repetition with
// the same `Idempotency-Key` answering the first answer; a malformed body refused with 400.
import type { BulkResult, ScheduleCounts } from '../../src/index.ts';
import { startTestHost, type TestHost } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
  for (const session of ['alpha', 'alpha', 'beta']) await t.create(session, { title: 'Stretch', prompt: 'stretch', after_seconds: 60 });
  await t.create('beta', { title: 'Later', prompt: 'later', after_seconds: 6000 });
});
afterEach(async () => {
  await t.close();
});

describe('the counts and bulk routes', () => {
  it('GET /api/counts answers the whole schedule, and a Session with ?sessionId=', async () => {
    expect((await t.get<ScheduleCounts>('/api/counts')).body).toEqual({
      all: { scheduled: 4, overdue: 0, paused: 0, failing: 0, ended: 0, total: 4 },
    });
    await t.advance(60_000);
    expect((await t.get<ScheduleCounts>('/api/counts?sessionId=beta')).body).toEqual({
      all: { scheduled: 1, overdue: 0, paused: 0, failing: 0, ended: 3, total: 4 },
      session: { scheduled: 1, overdue: 0, paused: 0, failing: 0, ended: 1, total: 2 },
    });
    expect(await t.get('/api/counts?session=beta')).toMatchObject({ status: 400, body: { code: 'invalid_selector' } });
  });

  it('POST /api/bulk pauses by filter, and a repeat with the same Idempotency-Key answers the first answer', async () => {
    const headers = { 'Idempotency-Key': 'pause-stretches' };
    const first = await t.send<BulkResult>('POST', '/api/bulk', { action: 'pause', filter: { text: 'stretch' } }, headers);
    expect(first).toEqual({ status: 200, body: { action: 'pause', matched: 3, done: 3, skipped: [] } });
    expect(await t.send('POST', '/api/bulk', { action: 'pause', filter: { text: 'stretch' } }, headers)).toEqual(first);
    expect((await t.get<ScheduleCounts>('/api/counts')).body.all).toMatchObject({ paused: 3, scheduled: 1 });
    expect(await t.send('POST', '/api/bulk', { action: 'pause' })).toMatchObject({ status: 400, body: { code: 'invalid_selector' } });
    expect(await t.send('POST', '/api/bulk', '[1]')).toMatchObject({ status: 400 });
  });
});
