// GET /api/catalog with query parameters: the filter, sort, limit and cursor reach
// `remote.catalog`, its page is the body, a refusal is `{code, message}` with the status of its
// code, and without parameters the route answers every task as before.
import type { CatalogEntry, CatalogPage } from '../../src/index.ts';
import { startTestHost, type TestHost } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

describe('GET /api/catalog with query parameters', () => {
  it('passes text, sessionId, kind, status, drifted, sort, limit and cursor through', async () => {
    for (let i = 1; i <= 5; i++)
      await t.create(i <= 3 ? 'alpha' : 'beta', { title: `Plant ${i}`, prompt: 'water', after_seconds: 600 - i });
    await t.create('alpha', { title: 'Stand-up', prompt: 'notes', daily: { time: '09:00:00', time_zone: 'UTC' } });
    expect((await t.get<CatalogEntry[]>('/api/catalog')).body).toHaveLength(6);

    const first = await t.get<CatalogPage>('/api/catalog?text=plant&limit=2');
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(5);
    expect(first.body.entries.map((e) => e.record.title)).toEqual(['Plant 5', 'Plant 4']);
    const next = await t.get<CatalogPage>(`/api/catalog?text=plant&limit=2&cursor=${encodeURIComponent(first.body.nextCursor ?? '')}`);
    expect(next.body.entries.map((e) => e.record.title)).toEqual(['Plant 3', 'Plant 2']);

    const alpha = await t.get<CatalogPage>('/api/catalog?sessionId=alpha&kind=after&status=active&sort=title');
    expect(alpha.body.entries.map((e) => e.record.title)).toEqual(['Plant 1', 'Plant 2', 'Plant 3']);
    // Nothing has drifted: drifted=true matches no task, drifted=false all of them.
    expect((await t.get<CatalogPage>('/api/catalog?drifted=true')).body).toMatchObject({ entries: [], total: 0 });
    expect((await t.get<CatalogPage>('/api/catalog?drifted=false&status=paused')).body.total).toBe(0);
    expect((await t.get<CatalogPage>('/api/catalog?drifted=false')).body.total).toBe(6);
  });

  it('answers a refused query with {code, message} and the status of its code', async () => {
    expect(await t.get('/api/catalog?limit=ten')).toMatchObject({ status: 400, body: { code: 'invalid_rule' } });
    expect(await t.get('/api/catalog?sort=id')).toMatchObject({ status: 400, body: { code: 'invalid_selector' } });
    expect(await t.get('/api/catalog?page=2')).toMatchObject({ status: 400, body: { code: 'invalid_selector' } });
    expect(await t.get('/api/catalog?status=sleeping')).toMatchObject({ status: 400, body: { code: 'invalid_selector' } });
    expect(await t.get('/api/catalog?drifted=yes')).toMatchObject({ status: 400, body: { code: 'invalid_selector' } });
  });
});
