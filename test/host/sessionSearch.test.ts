// The Session list for the page's searchable Session fields and the clock reading on catalog
// pages: `GET /api/sessions?prefix=&limit=` answers at most `limit` Session ids (sorted) that
// start with the prefix, case-insensitively, and keeps up with Sessions that appear later (a new
// task, a transcript) without reading the catalog again; a bad limit is refused. A paged
// `GET /api/catalog` answer carries `now`, the Host's clock when it answered.
import type { CatalogPage } from '../../src/index.ts';
import { START, startTestHost, type TestHost } from './support.ts';

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

const task = (title: string) => ({ title, prompt: 'water', after_seconds: 600 });

describe('GET /api/sessions?prefix', () => {
  it('answers the first ids that start with the prefix, and Sessions created since', async () => {
    for (const id of ['ops-3', 'ops-1', 'Ops-2', 'dev-1', 'ops-10']) expect((await t.create(id, task(id))).status).toBe(200);
    expect((await t.get('/api/sessions?prefix=ops')).body).toEqual(['Ops-2', 'ops-1', 'ops-10', 'ops-3']);
    expect((await t.get('/api/sessions?prefix=ops-1&limit=1')).body).toEqual(['ops-1']);
    expect((await t.get('/api/sessions?prefix=')).body).toEqual(['Ops-2', 'dev-1', 'ops-1', 'ops-10', 'ops-3']);
    expect((await t.get('/api/sessions?prefix=qa')).body).toEqual([]);

    // A Session that appears after the list was first read is found at once.
    expect((await t.create('ops-7', task('late'))).status).toBe(200);
    expect((await t.get('/api/sessions?prefix=ops-7')).body).toEqual(['ops-7']);
    expect((await t.get('/api/sessions')).body).toEqual(['Ops-2', 'dev-1', 'ops-1', 'ops-10', 'ops-3', 'ops-7']);
  });

  it('refuses a limit that is not a whole number from 1 to 200', async () => {
    for (const limit of ['0', '201', 'ten', '-1']) {
      expect(await t.get(`/api/sessions?prefix=a&limit=${limit}`)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    }
  });
});

describe('GET /api/catalog with query parameters', () => {
  it('answers now, the Host clock reading the page was read at', async () => {
    await t.create('alpha', task('Plant'));
    expect((await t.get<CatalogPage & { now: string }>('/api/catalog?limit=5')).body.now).toBe(START);
    await t.advance(60_000);
    expect((await t.get<CatalogPage & { now: string }>('/api/catalog?limit=5')).body.now).toBe('2030-01-07T08:01:00.000Z');
  });
});
