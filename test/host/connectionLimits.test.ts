// The Host's limits on connections and slow clients, each configured small through the Host's
// options: a body that stops arriving is cut at the body deadline with 408 `request_timeout`
// (nothing stored), headers that never end are cut at the headers timeout, a kept-alive connection
// left idle is closed at the keep-alive timeout, connections past the
// cap are refused while the ones held stay served (and a normal request works again once they
// leave), and a client that goes away in the middle of its upload is logged as one quiet line —
// not as an internal error, and without a stack trace.
import { connectRaw, hostHeader, jsonBodyOf, type RawConnection, rawGet, statusOf } from './rawHttp.ts';
import { startTestHost, type TestHost } from './support.ts';

let t: TestHost;
afterEach(async () => {
  await t?.close();
});

const CREATE = '/api/sessions/demo/tools/schedule_create';

/** Headers of a JSON POST to `path` announcing `length` body bytes. */
const postHead = (url: string, path: string, length: number) =>
  `POST ${path} HTTP/1.1\r\nHost: ${hostHeader(url)}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe('slow clients', () => {
  it('a body that stops arriving is cut at the body deadline with 408 request_timeout, and nothing is stored', {
    timeout: 20_000,
  }, async () => {
    t = await startTestHost({ limits: { bodyTimeoutMs: 200, requestTimeoutMs: 10_000 } });
    const slow = await connectRaw(t.url);
    slow.write(`${postHead(t.url, CREATE, 200)}{"title": "slow",`);
    await slow.closed;
    expect(statusOf(slow.text())).toBe(408);
    expect(jsonBodyOf(slow.text())).toMatchObject({ code: 'request_timeout' });
    expect((await t.get('/api/catalog')).body).toEqual([]);
  });

  it('a body sent one byte at a time is cut at the request timeout', { timeout: 20_000 }, async () => {
    t = await startTestHost({ limits: { bodyTimeoutMs: 10_000, requestTimeoutMs: 300, headersTimeoutMs: 300 } });
    const slow = await connectRaw(t.url);
    slow.write(postHead(t.url, CREATE, 200));
    const drip = setInterval(() => slow.write(' '), 20);
    try {
      await slow.closed;
    } finally {
      clearInterval(drip);
    }
    expect(statusOf(slow.text())).toBe(408);
    expect((await t.get('/api/catalog')).body).toEqual([]);
  });

  it('a kept-alive connection that sends nothing after its answer is closed at the keep-alive timeout', {
    timeout: 20_000,
  }, async () => {
    t = await startTestHost({ limits: { keepAliveTimeoutMs: 200 } });
    const idle = await connectRaw(t.url);
    idle.write(rawGet(t.url, '/api/status'));
    await idle.waitFor((text) => text.includes('"testClock"'));
    const answered = Date.now();
    await idle.closed;
    expect(statusOf(idle.text())).toBe(200);
    // Closed by the Host, after the timeout and well before the default of 5 s.
    expect(Date.now() - answered).toBeLessThan(4_000);
  });

  it('headers that never end are cut at the headers timeout', { timeout: 20_000 }, async () => {
    t = await startTestHost({ limits: { headersTimeoutMs: 200, requestTimeoutMs: 10_000 } });
    const slow = await connectRaw(t.url);
    slow.write(`GET /api/status HTTP/1.1\r\nHost: ${hostHeader(t.url)}\r\n`);
    await slow.closed;
    expect(statusOf(slow.text())).toBe(408);
  });
});

describe('the connection cap', () => {
  it('refuses connections past the cap; the held ones stay served, and a normal request works once they leave', async () => {
    t = await startTestHost({ limits: { maxConnections: 3, keepAliveTimeoutMs: 60_000 } });
    const held: RawConnection[] = [];
    for (let i = 0; i < 3; i++) {
      const connection = await connectRaw(t.url);
      connection.write(rawGet(t.url, '/api/status'));
      await connection.waitFor((text) => text.includes('"testClock"'));
      held.push(connection);
    }
    const extra = await connectRaw(t.url);
    extra.write(rawGet(t.url, '/api/status'));
    await extra.closed;
    expect(statusOf(extra.text())).toBeUndefined();

    // A held connection is still served.
    const first = held[0] as RawConnection;
    const before = first.text().length;
    first.write(rawGet(t.url, '/api/status'));
    await first.waitFor((text) => text.slice(before).includes('"testClock"'));
    expect(t.host.stats().connections).toBe(3);

    for (const connection of held) connection.destroy();
    await vi.waitFor(() => expect(t.host.stats().connections).toBe(0));
    expect((await t.get('/api/status')).status).toBe(200);
  });
});

describe('a client that goes away mid-upload', () => {
  it('is logged as one quiet line, not as an internal error with a stack trace', async () => {
    const logged: Array<{ level: string; message: string; data: unknown }> = [];
    t = await startTestHost({
      logger: {
        warn: (message, data) => void logged.push({ level: 'warn', message, data }),
        error: (message, data) => void logged.push({ level: 'error', message, data }),
      },
    });
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const upload = await connectRaw(t.url);
      upload.write(`${postHead(t.url, CREATE, 1_000)}{"title": "gone", "prompt": "`);
      upload.destroy();
      await vi.waitFor(() => expect(logged.length).toBeGreaterThan(0));
      // Later requests are answered, and nothing more was logged for the one that went away.
      expect((await t.send('POST', CREATE, { title: 'ok', prompt: 'ok', after_seconds: 60 })).status).toBe(200);
      await t.host.service.whenIdle();
      expect(logged).toEqual([
        { level: 'warn', message: expect.stringMatching(/^HTTP POST \/api\/sessions\/demo\/tools\/schedule_create: /), data: undefined },
      ]);
      expect(logged[0]?.message).not.toContain('\n');
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });
});
