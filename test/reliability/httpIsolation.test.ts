// Isolation over HTTP at test scale (fixed seed; `npm run stress` runs more sequences): requests
// aimed at Session A's routes never read, update or delete a task of Session B, and requests the
// Host must refuse (foreign Origin, cross-site, over 64 KiB, foreign Host) store nothing — see
// httpIsolation.ts. Also the body limit at its exact edge, with a Content-Length and chunked, and
// a DNS-rebinding write whose Origin matches its foreign Host header.
import { rmSync } from 'node:fs';
import { MAX_BODY_BYTES } from '../../src/console/requestGuards.ts';
import { startTestHost, type TestHost } from '../host/support.ts';
import { runs } from '../support/runs.ts';
import { runHttpIsolation, seedDataDir } from './httpIsolation.ts';
import { dataFiles, type RawRequest, sameFiles, sendRaw } from './httpRequests.ts';
import { T0 } from './world.ts';

describe('Session isolation over HTTP', () => {
  it("no sequence of requests to Session A's routes reads, updates or deletes a task of Session B; refused requests store nothing", async () => {
    const sequences = runs({ short: 60, long: 150 });
    const figures = await runHttpIsolation({ runs: sequences, seed: 7_401 });
    expect(figures.sequences).toBe(sequences);
    expect(figures.aimedAtB).toBeGreaterThan(sequences * 1.6);
    for (const count of Object.values(figures.refused)) expect(count).toBeGreaterThan(sequences / 7);
  });
});

describe('the HTTP guards at their edges', () => {
  let t: TestHost;
  let dir: string;
  let own: string;
  beforeEach(async () => {
    dir = seedDataDir();
    t = await startTestHost({ keepDataDir: dir, testClock: T0 });
    own = new URL(t.url).host;
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A create of A's whose body is exactly `bytes` long (padded with JSON whitespace: a prompt holds at most 16,384 characters). */
  const createOf = (bytes: number, chunked: boolean): RawRequest => {
    const head = '{"title":"edge","after_seconds":600,"prompt":"p"';
    const body = `${head}${' '.repeat(bytes - head.length - 1)}}`;
    expect(Buffer.byteLength(body)).toBe(bytes);
    return {
      method: 'POST',
      path: '/api/sessions/A/tools/schedule_create',
      headers: { host: own, 'content-type': 'application/json' },
      body,
      chunked,
    };
  };

  it.each([false, true])(
    'a body of exactly 64 KiB is accepted, one byte more is refused and stores nothing (chunked: %s)',
    async (chunked) => {
      const before = await dataFiles(dir);
      const over = await sendRaw(t.url, createOf(MAX_BODY_BYTES + 1, chunked));
      expect([over.status, JSON.parse(over.text).code]).toEqual([413, 'body_too_large']);
      await t.host.service.whenIdle();
      expect(sameFiles(before, await dataFiles(dir))).toBe(true);
      const edge = await sendRaw(t.url, createOf(MAX_BODY_BYTES, chunked));
      expect([edge.status, JSON.parse(edge.text).title]).toEqual([200, 'edge']);
    },
  );

  it('a rebound DNS name (foreign Host, Origin to match) cannot write, not even to the test clock', async () => {
    const before = await dataFiles(dir);
    const evil = `evil.example:${new URL(t.url).port}`;
    const headers = { host: evil, origin: `http://${evil}`, 'content-type': 'application/json' };
    for (const request of [
      { method: 'DELETE', path: '/api/sessions/B/tasks/sch_8', headers },
      { method: 'POST', path: '/api/test/clock', headers, body: '{"advanceMs":86400000}' },
    ]) {
      const res = await sendRaw(t.url, request);
      expect([res.status, JSON.parse(res.text).code]).toEqual([403, 'host_not_allowed']);
    }
    await t.host.service.whenIdle();
    expect(sameFiles(before, await dataFiles(dir))).toBe(true);
    expect(new Date(t.host.clock.now()).toISOString()).toBe(T0);
  });
});
