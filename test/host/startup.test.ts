// How the Host starts: settings from the environment (the test clock is never on unless
// SCHEDULE_TEST_CLOCK is set), `npm start`'s entry printing its URL and exiting 0 after a clean
// shutdown on SIGTERM, and the page with its import map, vendor modules and security headers.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostOptionsFromEnv } from '../../host/env.ts';
import { startTestHost } from './support.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('settings from the environment', () => {
  it('defaults: 127.0.0.1:4319, ./data, and no test clock', () => {
    expect(hostOptionsFromEnv({})).toEqual({ dataDir: resolve('./data'), port: 4319, hostname: '127.0.0.1' });
  });

  it('PORT, HOST, DATA_DIR and SCHEDULE_TEST_CLOCK override', () => {
    const env = { PORT: '0', HOST: '::1', DATA_DIR: '/tmp/x', SCHEDULE_TEST_CLOCK: '2030-01-01T00:00:00Z' };
    expect(hostOptionsFromEnv(env)).toEqual({ dataDir: '/tmp/x', port: 0, hostname: '::1', testClock: '2030-01-01T00:00:00Z' });
  });

  it('refuses a malformed PORT or SCHEDULE_TEST_CLOCK, naming the variable', () => {
    expect(() => hostOptionsFromEnv({ PORT: '70000' })).toThrow(/^PORT/);
    expect(() => hostOptionsFromEnv({ PORT: 'http' })).toThrow(/^PORT/);
    expect(() => hostOptionsFromEnv({ SCHEDULE_TEST_CLOCK: 'tomorrow' })).toThrow(/^SCHEDULE_TEST_CLOCK/);
  });

  it('INSPECT_WS names the Stately Inspector relay as a ws: or wss: URL; empty leaves it off', () => {
    expect(hostOptionsFromEnv({ INSPECT_WS: 'ws://localhost:8080' })).toMatchObject({ inspectWs: 'ws://localhost:8080/' });
    expect(hostOptionsFromEnv({ INSPECT_WS: ' wss://inspect.lan/relay?room=a ' })).toMatchObject({
      inspectWs: 'wss://inspect.lan/relay?room=a',
    });
    expect(hostOptionsFromEnv({ INSPECT_WS: 'ws://[::1]:9000' })).toMatchObject({ inspectWs: 'ws://[::1]:9000/' });
    expect(hostOptionsFromEnv({ INSPECT_WS: '' })).not.toHaveProperty('inspectWs');
    expect(hostOptionsFromEnv({ INSPECT_WS: '  ' })).not.toHaveProperty('inspectWs');
  });

  it('refuses a malformed INSPECT_WS, naming the variable and the reason', () => {
    const refused: Array<[string, RegExp]> = [
      ['localhost:8080', /start with ws:\/\/ or wss:\/\//],
      ['http://localhost:8080', /start with ws:\/\/ or wss:\/\//],
      ['ws:/localhost:8080', /start with ws:\/\/ or wss:\/\//],
      ['ws://', /not a URL/],
      ['ws://localhost:99999', /not a URL/],
      ['ws://user:secret@localhost:8080', /credentials/],
      ['ws://localhost:8080/#x', /fragment/],
    ];
    for (const [value, reason] of refused) {
      expect(() => hostOptionsFromEnv({ INSPECT_WS: value })).toThrow(/^INSPECT_WS must be a WebSocket URL/);
      expect(() => hostOptionsFromEnv({ INSPECT_WS: value })).toThrow(reason);
    }
  });
});

describe('the test clock', () => {
  it('is off unless asked for: no /api/test/clock route, status says so', async () => {
    const t = await startTestHost({ systemClock: true });
    try {
      expect(t.host.testClock).toBeUndefined();
      expect(await t.send('POST', '/api/test/clock', { advanceMs: 1000 })).toMatchObject({
        status: 404,
        body: { code: 'route_not_found' },
      });
      expect((await t.get('/api/status')).body).toMatchObject({ testClock: false });
    } finally {
      await t.close();
    }
  });

  it('in test-clock mode, advance and set move the Host clock and answer the new time', async () => {
    const t = await startTestHost();
    try {
      expect((await t.get('/api/status')).body).toEqual({
        now: '2030-01-07T08:00:00.000Z',
        testClock: true,
        transcripts: true,
        inspector: true,
      });
      expect((await t.send('POST', '/api/test/clock', { advanceMs: 90_000 })).body).toEqual({ now: '2030-01-07T08:01:30.000Z' });
      expect((await t.send('POST', '/api/test/clock', { set: '2030-02-01T00:00:00Z' })).body).toEqual({ now: '2030-02-01T00:00:00.000Z' });
      expect(await t.send('POST', '/api/test/clock', { advanceMs: -1 })).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
      expect(await t.send('POST', '/api/test/clock', { advanceMs: 1, set: 'x' })).toMatchObject({ status: 400 });
    } finally {
      await t.close();
    }
  });
});

describe('npm start (host/main.ts)', () => {
  it('prints its URL, serves, and exits 0 after a clean shutdown on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-main-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'host/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOST: '', DATA_DIR: dataDir, SCHEDULE_TEST_CLOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      const url = await new Promise<string>((found, failed) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (match?.[1] !== undefined) found(match[1]);
        });
        child.on('exit', () => failed(new Error(`exited early:\n${out}`)));
      });
      expect(out).not.toContain('TEST CLOCK');
      const status = (await (await fetch(`${url}/api/status`)).json()) as { testClock: boolean };
      expect(status.testClock).toBe(false);
      const created = await fetch(`${url}/api/sessions/demo/tools/schedule_create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Later', prompt: 'later', after_seconds: 3600 }),
      });
      expect(created.status).toBe(200);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(out).toContain('stopped');
      // The domain was closed cleanly: a new Host opens it and sees the task.
      const t = await startTestHost({ keepDataDir: dataDir });
      expect((await t.get('/api/catalog')).body).toHaveLength(1);
      await t.close();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the page', () => {
  it('serves index.html with its import map allowed by hash, and the vendor modules it names', async () => {
    const t = await startTestHost();
    try {
      const page = await fetch(`${t.url}/`);
      const html = await page.text();
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
      expect(csp).toContain("frame-ancestors 'none'");
      const imports = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(html)?.[1] ?? '{}').imports as Record<string, string>;
      expect(Object.keys(imports).sort()).toEqual(['htm', 'preact', 'preact/hooks']);
      for (const path of Object.values(imports)) {
        // The page names its files relative to itself, so it works under any base path.
        const r = await fetch(new URL(path, `${t.url}/`));
        expect([path, r.status, r.headers.get('content-type')]).toEqual([path, 200, 'text/javascript; charset=utf-8']);
      }
      const app = await fetch(`${t.url}/static/app.js`);
      expect(app.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
