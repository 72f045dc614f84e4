// SIGTERM ends the Host in every state of its event streams: a real `npm start` child (test-clock
// mode, temp data folder) gets SIGTERM with an idle event stream or inspector stream open, with a
// stream stuck mid-write to a client that stopped reading, and with a stream requested on an
// already-open keep-alive connection after shutdown began. Each time it must exit 0 and print `stopped` within 10 s
// (the bound the Host promises: streams are ended or refused, and connections still open after
// the shutdown grace are closed by force); a stream asked for during shutdown is refused with
// 503 `host_stopping`, never opened. The domain then opens cleanly in a new Host.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PROMPT_LENGTH } from '../../src/domain/args/fields.ts';
import { connectRaw, hostHeader, jsonBodyOf, rawGet, stalledStream, statusOf } from '../host/rawHttp.ts';
import { startTestHost } from '../host/support.ts';
import { exitWithin, type HostProcess, startHostProcess } from './hostProcess.ts';

/** How long the Host may take to exit after SIGTERM. */
const EXIT_BOUND_MS = 10_000;

let dataDir: string;
let host: HostProcess | undefined;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-shutdown-'));
});
afterEach(async () => {
  host?.kill();
  await host?.exited;
  host = undefined;
  await rm(dataDir, { recursive: true, force: true });
});

/** SIGTERM, then the exit within the bound: code 0 and `stopped` printed. */
async function terminate(child: HostProcess): Promise<void> {
  child.child.kill('SIGTERM');
  const code = await exitWithin(child, EXIT_BOUND_MS);
  expect({ code, stopped: child.output().includes('stopped') }, child.output()).toEqual({ code: 0, stopped: true });
}

/** The domain was closed cleanly: a new in-process Host opens it. */
async function reopens(tasks: number): Promise<void> {
  const t = await startTestHost({ keepDataDir: dataDir });
  try {
    expect((await t.get<unknown[]>('/api/catalog')).body).toHaveLength(tasks);
  } finally {
    await t.close();
  }
}

describe('SIGTERM with event streams open', () => {
  it.each([
    ['an idle event stream', '/api/events', 'event: ready'],
    ['an idle inspector stream', '/api/inspect/events', 'event: snapshot'],
  ])('%s: it is ended and the Host exits', { timeout: 30_000 }, async (_stream, path, opened) => {
    host = await startHostProcess({ dataDir });
    const idle = await connectRaw(host.url);
    idle.write(rawGet(host.url, path));
    await idle.waitFor((text) => text.includes(opened));
    await terminate(host);
    await idle.closed;
    await reopens(0);
  });

  it('a stream mid-write to a client that stopped reading: the Host still exits', { timeout: 60_000 }, async () => {
    host = await startHostProcess({ dataDir });
    const stalled = await stalledStream(host.url);
    // One-shots with prompts of the largest accepted length fall due together: one delivery event
    // (each reminder and the demo agent's answer) of about 15 MB, more than the kernel buffers of
    // the stalled connection hold.
    const prompt = 'p'.repeat(MAX_PROMPT_LENGTH);
    const tasks = Math.ceil(15_000_000 / (2 * MAX_PROMPT_LENGTH));
    for (let i = 0; i < tasks; i++) {
      const r = await host.api('POST', '/api/sessions/big/tools/schedule_create', { title: `t${i}`, prompt, after_seconds: 60 });
      expect(r.status).toBe(200);
    }
    expect((await host.api('POST', '/api/test/clock', { advanceMs: 60_000 })).status).toBe(200);
    expect(stalled.bytes).toBeLessThan(15_000_000);
    await terminate(host);
    stalled.destroy();
    await reopens(tasks);
  });

  it('a stream requested on a kept-alive connection after SIGTERM is refused with 503, and the Host exits', {
    timeout: 30_000,
  }, async () => {
    // A long grace, so the refusal (not the forced close at the end of the grace) is what ends it.
    host = await startHostProcess({ dataDir, env: { SHUTDOWN_GRACE_MS: '8000' } });
    const kept = await connectRaw(host.url);
    kept.write(rawGet(host.url, '/api/status'));
    await kept.waitFor((text) => text.includes('"testClock"'));
    const before = kept.text().length;
    // The next request has begun on the kept-alive connection when the signal arrives.
    kept.write(`GET /api/events HTTP/1.1\r\nHost: ${hostHeader(host.url)}\r\n`);
    const child = host;
    child.child.kill('SIGTERM');
    await child.waitForOutput(/shutting down/);
    kept.write('\r\n');
    const code = await exitWithin(child, EXIT_BOUND_MS);
    expect({ code, stopped: child.output().includes('stopped') }, child.output()).toEqual({ code: 0, stopped: true });
    await kept.closed;
    const answer = kept.text().slice(before);
    expect(statusOf(answer), answer.slice(0, 300)).toBe(503);
    expect(jsonBodyOf(answer)).toMatchObject({ code: 'host_stopping' });
    await reopens(0);
  });
});
