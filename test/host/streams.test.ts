// The Host's live streams under pressure: a client that stops reading `/api/events` is
// disconnected once its backlog passes the bound, and everything held for it is released (no
// queued messages, no stream, no listener); the number of concurrent streams (events and
// inspector together) is capped, an extra one refused with 503 `too_many_streams` until one
// leaves; a reader that keeps up is never dropped.
import { type RawConnection, stalledStream } from './rawHttp.ts';
import { openEvents, startTestHost, type TestHost } from './support.ts';

let t: TestHost;
afterEach(async () => {
  await t?.close();
});

const BACKLOG = 256 * 1024;
const PAYLOAD = 100_000;
/** 30 MB in all: far beyond what the kernel buffers of one loopback connection hold. */
const MESSAGES = 300;

/** Appends one large line to a Session's transcript: one `delivery` event of about `PAYLOAD` bytes. */
async function bigDelivery(sessionId: string, i: number): Promise<void> {
  const agent = await t.host.sessions.resolveAgent(sessionId);
  agent.followup({ role: 'user', producer: 'schedule', text: `${i} ${'x'.repeat(PAYLOAD)}` });
  await agent.flush();
}

/** Reads the rest of a stalled connection: the events it got and whether the Host ended it. */
async function drain(connection: RawConnection): Promise<{ ended: boolean; deliveries: number }> {
  connection.resume();
  const count = () => connection.text().split('event: delivery\n').length - 1;
  await connection.waitFor(() => count() >= MESSAGES).catch(() => undefined);
  return { ended: connection.ended, deliveries: count() };
}

describe('a client that stops reading /api/events', () => {
  it('is disconnected after a bounded backlog, and what the Host held for it is released', async () => {
    t = await startTestHost({ limits: { streamBacklogBytes: BACKLOG } });
    const stalled = await stalledStream(t.url);
    const live = await openEvents<{ lines: Array<{ text: string }> }>(t.url);
    await live.until((seen) => seen.some((e) => e.event === 'ready'));

    let sent = 0;
    for (; sent < MESSAGES && (t.host.stats?.().streams ?? 2) === 2; sent++) {
      await bigDelivery('s1', sent);
      // The reader that keeps up sees every event.
      await live.until((seen) => seen.filter((e) => e.event === 'delivery').length === sent + 1);
    }
    const { ended, deliveries } = await drain(stalled);
    expect({ ended, allDelivered: deliveries === MESSAGES }).toEqual({ ended: true, allDelivered: false });
    // Nothing is queued for it any more and it no longer counts as a stream.
    expect(t.host.stats()).toMatchObject({ streams: 1, backlogBytes: 0 });
    // The other client was never dropped.
    await bigDelivery('s1', sent);
    await live.until((seen) => seen.filter((e) => e.event === 'delivery').length === sent + 1);
    live.close();
  });

  it('a stalled inspector stream is held to its bound too: it is sent a fresh snapshot, never a growing queue', async () => {
    t = await startTestHost({ limits: { streamBacklogBytes: BACKLOG } });
    const stalled = await stalledStream(t.url, '/api/inspect/events', 'event: snapshot');
    for (let i = 0; i < 40; i++) await bigDelivery(`s${i}`, i);
    for (let i = 0; i < 20; i++) {
      const r = await t.create(`s${i}`, { title: `t${i}`, prompt: 'p'.repeat(2_000), every_seconds: 60 });
      expect(r.status).toBe(200);
    }
    await t.advance(60_000);
    // Still connected (the inspector catches a client up instead), and within the bound.
    expect(t.host.stats().streams).toBe(1);
    expect(t.host.stats().backlogBytes).toBeLessThanOrEqual(BACKLOG);
    stalled.destroy();
  });
});

describe('the number of concurrent streams', () => {
  it('is capped: an extra stream is refused with 503 too_many_streams until one leaves', async () => {
    t = await startTestHost({ limits: { maxStreams: 2 } });
    const first = await openEvents(t.url);
    await first.until((seen) => seen.length > 0);
    const second = await openEvents(t.url, '/api/inspect/events', (text) => text);
    await second.until((seen) => seen.length > 0);

    const refused = await fetch(`${t.url}/api/events`);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'too_many_streams' });
    const refusedInspector = await fetch(`${t.url}/api/inspect/events`);
    expect(refusedInspector.status).toBe(503);
    await refusedInspector.body?.cancel();
    // Ordinary requests still work.
    expect((await t.get('/api/status')).status).toBe(200);

    first.close();
    await vi.waitFor(() => expect(t.host.stats().streams).toBe(1));
    const third = await openEvents(t.url);
    await third.until((seen) => seen.some((e) => e.event === 'ready'));
    third.close();
    second.close();
  });
});
