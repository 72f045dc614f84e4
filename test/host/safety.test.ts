// The Host's safety rules: loopback binding, writes only from its own origin, requests only for
// its own host name, bounded JSON bodies, no file outside the static folder, and bad input that
// never changes stored data.
import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { MAX_BODY_BYTES } from '../../src/console/requestGuards.ts';
import { STATIC_DIR, staticFile } from '../../src/console/staticRoutes.ts';
import { startTestHost, type TestHost } from './support.ts';

/** A request sent exactly as written (no URL normalisation), with a chosen Host header. */
function raw(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The bytes of every file the storage keeps in the data folder. */
async function storedFiles(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile() && !entry.name.endsWith('.lock')) files[entry.name] = await readFile(join(dir, entry.name), 'utf8');
  }
  return files;
}

let t: TestHost;
beforeEach(async () => {
  t = await startTestHost();
});
afterEach(async () => {
  await t.close();
});

const args = { title: 'Tea', prompt: 'tea', after_seconds: 60 };

describe('Host safety', () => {
  it('binds to loopback by default', () => {
    expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('refuses a write from another origin and stores nothing; its own origin and no origin are accepted', async () => {
    const path = '/api/sessions/demo/tools/schedule_create';
    const evil = await t.send('POST', path, args, { origin: 'http://evil.example' });
    expect(evil).toMatchObject({ status: 403, body: { code: 'origin_not_allowed' } });
    const crossSite = await t.send('POST', path, args, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite).toMatchObject({ status: 403, body: { code: 'origin_not_allowed' } });
    expect((await t.get('/api/catalog')).body).toEqual([]);
    expect((await t.send('POST', path, args, { origin: t.url })).status).toBe(200);
    expect((await t.send('POST', path, args)).status).toBe(200);
    expect((await t.get('/api/catalog')).body).toHaveLength(2);
  });

  it('refuses requests addressed to another host name (DNS rebinding)', async () => {
    const r = await raw(t.url, '/api/catalog', { host: `evil.example:${new URL(t.url).port}` });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body)).toMatchObject({ code: 'host_not_allowed' });
    expect((await raw(t.url, '/api/catalog', { host: `localhost:${new URL(t.url).port}` })).status).toBe(200);
  });

  it('limits bodies and requires JSON objects', async () => {
    const path = '/api/sessions/demo/tools/schedule_create';
    const big = await t.send('POST', path, { ...args, prompt: 'x'.repeat(MAX_BODY_BYTES) });
    expect(big).toMatchObject({ status: 413, body: { code: 'body_too_large' } });
    expect(await t.send('POST', path, '{"title":', {})).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect(await t.send('POST', path, 'null')).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    const form = await t.send('POST', path, 'title=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form).toMatchObject({ status: 415, body: { code: 'unsupported_media_type' } });
    expect(await t.get('/api/nothing-here')).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
  });

  it('never serves a file outside the static folder', async () => {
    for (const path of [
      '/static/../createHost.ts',
      '/static/%2e%2e/createHost.ts',
      '/static/..%2fcreateHost.ts',
      '/static/%2e%2e%2f%2e%2e%2fpackage.json',
      '/static/app.ts',
      '/vendor/../package.json',
      '/vendor/preact.js',
    ]) {
      const r = await raw(t.url, path);
      expect([path, r.status]).toEqual([path, 404]);
      expect(JSON.parse(r.body)).toMatchObject({ code: 'route_not_found' });
    }
    expect(await staticFile(STATIC_DIR, '../createHost.ts')).toBeNull();
    expect(await staticFile(STATIC_DIR, '/etc/passwd')).toBeNull();
    expect(await staticFile(STATIC_DIR, 'app.js')).toBe(join(STATIC_DIR, 'app.js'));
  });

  it('bad input never changes stored data', async () => {
    const { body: view } = await t.create('demo', { title: 'Keep', prompt: 'keep', daily: { time: '09:00:00', time_zone: 'UTC' } });
    await t.host.service.whenIdle();
    const before = await storedFiles(t.dataDir);
    expect(Object.keys(before).length).toBeGreaterThan(0);
    const catalogBefore = (await t.get('/api/catalog')).body;
    const task = `/api/sessions/demo/tasks/${view.id}`;
    const bad: Array<[string, string, unknown]> = [
      ['PATCH', task, { expected: { id: view.id }, title: 'x' }],
      ['PATCH', task, { expected: catalogBefore, change: { kind: 'after', after_seconds: 5 } }],
      ['PATCH', task, { title: 'no expected' }],
      ['PATCH', task, '{broken'],
      ['DELETE', '/api/sessions/other/tasks/sch_1', undefined],
      ['POST', '/api/sessions/demo/tools/schedule_update', { id: view.id, title: '' }],
      [
        'POST',
        '/api/sessions/demo/tools/schedule_create',
        { title: 'x', prompt: 'y', cron: { expression: '61 * * * *', time_zone: 'UTC' } },
      ],
      [
        'POST',
        '/api/sessions/demo/tools/schedule_create',
        { title: 'x', prompt: 'y', daily: { time: '09:00:00', time_zone: 'UTC' }, extra: 1 },
      ],
    ];
    for (const [method, path, body] of bad) {
      const r = await t.send(method, path, body);
      expect([method, path, r.status >= 400]).toEqual([method, path, true]);
    }
    await t.host.service.whenIdle();
    expect((await t.get('/api/catalog')).body).toEqual(catalogBefore);
    expect(await storedFiles(t.dataDir)).toEqual(before);
  });
});
