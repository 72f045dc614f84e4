// A Host bound to every interface (`HOST=0.0.0.0` or `::`) keeps its DNS-rebinding guard: it
// refuses to start without an explicit allow-list (`ALLOWED_HOSTS`, option `allowedHosts`), and
// then answers only `Host` headers naming a listed name (or its loopback names) and accepts
// writes only from those origins. A page on a rebound DNS name — whose Origin matches its own
// Host header — is refused.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../../host/createHost.ts';
import { hostOptionsFromEnv } from '../../host/env.ts';
import { startTestHost, type TestHost } from './support.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A request to 127.0.0.1:`port` with a chosen Host header (and Origin, for writes). */
function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request({ hostname: '127.0.0.1', port, path, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('ALLOWED_HOSTS from the environment', () => {
  it('is required when HOST names every interface; the refusal names the variable', () => {
    for (const HOST of ['0.0.0.0', '::']) {
      expect(() => hostOptionsFromEnv({ HOST })).toThrow(/ALLOWED_HOSTS/);
      expect(() => hostOptionsFromEnv({ HOST, ALLOWED_HOSTS: ' , ' })).toThrow(/^ALLOWED_HOSTS/);
    }
  });

  it('is read as comma-separated host names, optionally with ports', () => {
    const options = hostOptionsFromEnv({ HOST: '0.0.0.0', ALLOWED_HOSTS: 'schedule.lan, 192.168.1.20:8080,[fd00::5]' });
    expect(options).toMatchObject({ hostname: '0.0.0.0', allowedHosts: ['schedule.lan', '192.168.1.20:8080', '[fd00::5]'] });
    // Allowed on a loopback bind too (extra names, e.g. behind a proxy); never required there.
    expect(hostOptionsFromEnv({ ALLOWED_HOSTS: 'schedule.lan' })).toMatchObject({ allowedHosts: ['schedule.lan'] });
    expect(hostOptionsFromEnv({})).not.toHaveProperty('allowedHosts');
  });

  it('refuses an entry that is not a host name with an optional port', () => {
    for (const bad of ['*', 'http://schedule.lan', 'schedule.lan/x', 'schedule.lan:http', 'schedule.lan:70000', 'a b', '::1']) {
      expect(() => hostOptionsFromEnv({ HOST: '0.0.0.0', ALLOWED_HOSTS: bad })).toThrow(/^ALLOWED_HOSTS/);
    }
  });
});

describe('a Host bound to every interface', () => {
  it('refuses to start without an allow-list, leaving the data folder unlocked', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-wildcard-'));
    try {
      await expect(createHost({ dataDir, port: 0, hostname: '0.0.0.0' })).rejects.toThrow(/allowedHosts|ALLOWED_HOSTS/);
      expect((await readdir(dataDir)).filter((name) => name.endsWith('.lock'))).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  describe('with an allow-list', () => {
    let t: TestHost;
    let port: number;
    beforeAll(async () => {
      t = await startTestHost({ hostname: '0.0.0.0', allowedHosts: ['schedule.lan', 'proxy.lan:8080'] });
      port = Number(new URL(t.url).port);
    });
    afterAll(async () => {
      await t.close();
    });

    it('answers only Host headers naming a listed name or a loopback name', async () => {
      for (const host of [`schedule.lan:${port}`, `SCHEDULE.lan:${port}`, 'proxy.lan:8080', `127.0.0.1:${port}`, `localhost:${port}`]) {
        expect([host, (await send(port, 'GET', '/api/status', { host })).status]).toEqual([host, 200]);
      }
      for (const host of [`evil.example:${port}`, 'evil.example', `proxy.lan:${port}`, 'schedule.lan:1', `0.0.0.0:${port}`]) {
        const r = await send(port, 'GET', '/api/catalog', { host });
        expect([host, r.status, r.body.code]).toEqual([host, 403, 'host_not_allowed']);
      }
    });

    it('refuses a rebound page (its Origin matching its Host header) and foreign origins; accepts listed origins', async () => {
      const body = JSON.stringify({ title: 'Tea', prompt: 'tea', after_seconds: 60 });
      const path = '/api/sessions/demo/tools/schedule_create';
      const post = (host: string, origin?: string) =>
        send(port, 'POST', path, { host, 'content-type': 'application/json', ...(origin === undefined ? {} : { origin }) }, body);
      expect(await post(`evil.example:${port}`, `http://evil.example:${port}`)).toMatchObject({
        status: 403,
        body: { code: 'host_not_allowed' },
      });
      expect(await post(`schedule.lan:${port}`, `http://evil.example:${port}`)).toMatchObject({
        status: 403,
        body: { code: 'origin_not_allowed' },
      });
      expect((await t.get('/api/catalog')).body).toEqual([]);
      expect((await post(`schedule.lan:${port}`, `http://schedule.lan:${port}`)).status).toBe(200);
      expect((await post('proxy.lan:8080', 'http://proxy.lan:8080')).status).toBe(200);
      expect((await post(`schedule.lan:${port}`)).status).toBe(200);
      expect((await t.get('/api/catalog')).body).toHaveLength(3);
    });
  });
});

describe('npm start with HOST=0.0.0.0', () => {
  it('exits 2 without ALLOWED_HOSTS, saying what to set', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-wildcard-main-'));
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
        cwd: root,
        env: { ...process.env, PORT: '0', HOST: '0.0.0.0', ALLOWED_HOSTS: '', DATA_DIR: dataDir, SCHEDULE_TEST_CLOCK: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        // A Host that started anyway is stopped, so the test fails instead of hanging.
        if (out.includes('listening')) child.kill('SIGTERM');
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      const code = await new Promise<number | null>((done) => child.on('exit', (exitCode) => done(exitCode)));
      expect(code).toBe(2);
      expect(out).toMatch(/ALLOWED_HOSTS/);
      expect(out).not.toMatch(/listening/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
