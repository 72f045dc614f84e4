// Who may use the console: the Host's `authorize(request, sessionId?)` hook refusing (403
// `not_authorized`, nothing changed) and allowing, the Session it is asked about, and the default —
// loopback clients only, read from the client address the Node adapter passes or, without one,
// from the request's host — together with the `Host`/`Origin` checks, the features a Host did not
// give (transcripts, metrics, an inspector) and the status that tells the page.
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { createConsole, isLoopbackAddress } from '../../src/console/index.ts';
import type { ConsoleOptions } from '../../src/console/options.ts';
import { type ServiceRig, serviceRig } from './rig.ts';

let rig: ServiceRig;
const closers: Array<() => void> = [];

beforeEach(async () => {
  rig = await serviceRig();
});

afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await rig.close();
});

function newConsole(options: Partial<ConsoleOptions> = {}) {
  const schedule = createConsole({ service: rig.service, clock: rig.clock, ...options });
  closers.push(() => schedule.close());
  return schedule;
}

const json = async (response: Response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> });

/** The `env` a Node adapter passes, for a client at `address`. */
function nodeEnv(address: string): { incoming: IncomingMessage } {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: address });
  return { incoming: new IncomingMessage(socket) };
}

describe('the authorize hook', () => {
  it('refuses with 403 not_authorized and changes nothing', async () => {
    const schedule = newConsole({ authorize: () => false });
    const pause = await schedule.fetch(new Request(`http://127.0.0.1/api/sessions/s1/tasks/${rig.task.id}/pause`, { method: 'POST' }));
    expect(await json(pause)).toMatchObject({ status: 403, body: { code: 'not_authorized' } });
    expect((await json(await schedule.fetch(new Request('http://127.0.0.1/')))).status).toBe(403);
    const entry = await rig.service.remote.get({ sessionId: 's1', id: rig.task.id });
    expect(entry).toMatchObject({ status: 'active' });
    expect(entry).not.toHaveProperty('pausedAt');
  });

  it('allows, and is told the Session a request is about', async () => {
    const asked: Array<[string, string | undefined]> = [];
    const schedule = newConsole({
      authorize: async (request, sessionId) => {
        asked.push([new URL(request.url).pathname, sessionId]);
        return request.headers.get('authorization') === 'Bearer ops' && sessionId !== 'secret';
      },
    });
    const as = (path: string, init: RequestInit = {}) =>
      schedule.fetch(new Request(`http://127.0.0.1${path}`, { ...init, headers: { authorization: 'Bearer ops', ...init.headers } }));
    expect((await as('/api/catalog')).status).toBe(200);
    expect((await as('/api/catalog?sessionId=s1&limit=5')).status).toBe(200);
    expect((await as(`/api/sessions/s1/tasks/${rig.task.id}/pause`, { method: 'POST' })).status).toBe(200);
    expect((await json(await as('/api/sessions/secret/tasks'))).body).toMatchObject({ code: 'not_authorized' });
    expect((await schedule.fetch(new Request('http://127.0.0.1/api/catalog'))).status).toBe(403);
    expect(asked).toEqual([
      ['/api/catalog', undefined],
      ['/api/catalog', 's1'],
      [`/api/sessions/s1/tasks/${rig.task.id}/pause`, 's1'],
      ['/api/sessions/secret/tasks', 'secret'],
      ['/api/catalog', undefined],
    ]);
  });

  it('is not asked for the probes', async () => {
    const schedule = newConsole({ authorize: () => false });
    expect(await json(await schedule.fetch(new Request('http://10.0.0.5/healthz')))).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await schedule.fetch(new Request('http://10.0.0.5/readyz'))).status).toBe(200);
  });
});

describe('the default authorize (loopback only)', () => {
  it('refuses a request to a non-loopback host when the adapter names no client address', async () => {
    const schedule = newConsole({ allowedHosts: ['schedule.example', 'localhost', '127.0.0.1', '[::1]'] });
    const refused = await schedule.fetch(new Request('http://schedule.example/api/catalog'));
    expect(await json(refused)).toMatchObject({ status: 403, body: { code: 'not_authorized' } });
    for (const host of ['127.0.0.1', 'localhost:4319', '[::1]:8080'])
      expect([host, (await schedule.fetch(new Request(`http://${host}/api/catalog`))).status]).toEqual([host, 200]);
  });

  it('reads the client address the Node adapter passes', async () => {
    const schedule = newConsole({ allowedHosts: ['schedule.example'] });
    const from = (address: string) => schedule.fetch(new Request('http://schedule.example/api/catalog'), nodeEnv(address));
    expect((await from('127.0.0.1')).status).toBe(200);
    expect((await from('::ffff:127.0.0.1')).status).toBe(200);
    expect((await from('::1')).status).toBe(200);
    expect(await json(await from('192.168.1.20'))).toMatchObject({ status: 403, body: { code: 'not_authorized' } });
    // A loopback Host header does not let a remote client in.
    const spoofed = await schedule.fetch(new Request('http://127.0.0.1/api/catalog'), nodeEnv('192.168.1.20'));
    expect(spoofed.status).toBe(403);
  });

  it('knows the loopback addresses', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1'])
      expect([address, isLoopbackAddress(address)]).toEqual([address, true]);
    for (const address of ['10.0.0.1', '::2', '128.0.0.1', '::ffff:10.0.0.1'])
      expect([address, isLoopbackAddress(address)]).toEqual([address, false]);
  });
});

describe('the Host and Origin checks', () => {
  it('answer only the loopback names and the allowed hosts, and writes only from their own pages or allowed origins', async () => {
    const schedule = newConsole({
      allowedHosts: ['ops.example:8443', 'localhost'],
      allowedOrigins: ['https://admin.example'],
      authorize: () => true,
    });
    const get = (host: string) => schedule.fetch(new Request(`http://${host}/api/catalog`));
    expect((await get('ops.example:8443')).status).toBe(200);
    expect((await get('localhost:1234')).status).toBe(200);
    expect(await json(await get('ops.example:9999'))).toMatchObject({ status: 403, body: { code: 'host_not_allowed' } });
    expect(await json(await get('evil.example'))).toMatchObject({ status: 403, body: { code: 'host_not_allowed' } });
    // The list replaces the default loopback names: 127.0.0.1 is not on it.
    expect(await json(await get('127.0.0.1'))).toMatchObject({ status: 403, body: { code: 'host_not_allowed' } });
    const post = (origin: string) =>
      schedule.fetch(
        new Request(`http://ops.example:8443/api/sessions/s1/tasks/${rig.task.id}/trigger`, { method: 'POST', headers: { origin } }),
      );
    expect(await json(await post('https://evil.example'))).toMatchObject({ status: 403, body: { code: 'origin_not_allowed' } });
    expect(await json(await post('http://localhost:8080'))).toMatchObject({ status: 403, body: { code: 'origin_not_allowed' } });
    expect((await post('http://ops.example:8443')).status).toBe(200);
    expect((await post('https://admin.example')).status).toBe(200);
  });
});

describe('what the Host did not give', () => {
  it('answers 404 route_not_found for the transcripts, the metrics and the inspector, and the status says so', async () => {
    const schedule = newConsole();
    const get = async (path: string) => json(await schedule.fetch(new Request(`http://127.0.0.1${path}`)));
    expect(await get('/api/sessions/s1/transcript')).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
    expect(await get('/metrics')).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
    expect(await get('/api/inspect/summary')).toMatchObject({ status: 404, body: { code: 'route_not_found' } });
    expect(await get('/api/status')).toEqual({
      status: 200,
      body: { now: '2030-01-07T08:00:00.000Z', testClock: false, transcripts: false, inspector: false },
    });
  });

  it('serves the transcripts and the metrics it is given, and its own routes behind its checks', async () => {
    const schedule = newConsole({
      transcripts: { transcript: async (sessionId) => [{ role: 'user', text: `hello ${sessionId}` }], list: async () => ['s2'] },
      metrics: { contentType: 'text/plain; version=0.0.4', exposition: async () => 'agent_schedule_up 1\n' },
      routes: [{ method: 'POST', path: '/api/hello', handle: async (request) => Response.json({ got: await request.json() }) }],
    });
    const get = (path: string) => schedule.fetch(new Request(`http://127.0.0.1${path}`));
    expect(await (await get('/api/sessions/s1/transcript')).json()).toEqual([{ role: 'user', text: 'hello s1' }]);
    expect(await (await get('/api/sessions')).json()).toEqual(['s1', 's2']);
    expect(await (await get('/metrics')).text()).toBe('agent_schedule_up 1\n');
    const hello = (origin: string) =>
      schedule.fetch(
        new Request('http://127.0.0.1/api/hello', {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin },
          body: '{"a":1}',
        }),
      );
    expect(await (await hello('http://127.0.0.1')).json()).toEqual({ got: { a: 1 } });
    expect((await hello('http://evil.example')).status).toBe(403);
  });

  it('refuses every request once closed', async () => {
    const schedule = newConsole();
    schedule.close();
    expect(await json(await schedule.fetch(new Request('http://127.0.0.1/api/catalog')))).toMatchObject({
      status: 503,
      body: { code: 'host_stopping' },
    });
  });
});
