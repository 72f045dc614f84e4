// The loop a newcomer sees: a reminder created over HTTP is delivered into its Session's
// transcript when the test clock reaches it, the demo agent answers, the history has the receipt,
// and live events report each step; everything survives a restart of the Host.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TranscriptAppend } from '../../host/sessions/fileSessions.ts';
import type { TranscriptLine } from '../../host/sessions/transcript.ts';
import type { CatalogEntry } from '../../src/index.ts';
import { openEvents, startTestHost, type TestHost } from './support.ts';

let t: TestHost;
afterEach(async () => {
  await t?.close();
});

describe('delivery through the Host', () => {
  it('a due reminder lands in the transcript with the demo agent’s answer and in the history', async () => {
    t = await startTestHost();
    const { body: view } = await t.create('demo', { title: 'Tea', prompt: 'the tea is ready', after_seconds: 90 });
    await t.advance(89_000);
    expect((await t.get('/api/sessions/demo/transcript')).body).toEqual([]);
    await t.advance(1_000);
    const transcript = (await t.get<TranscriptLine[]>('/api/sessions/demo/transcript')).body;
    expect(transcript.map((l) => [l.role, l.producer, l.at])).toEqual([
      ['user', 'schedule', '2030-01-07T08:01:30.000Z'],
      ['assistant', 'demo-agent', '2030-01-07T08:01:30.000Z'],
    ]);
    expect(transcript[0]?.text).toContain('reminder_prompt_json: "the tea is ready"');
    expect(transcript[1]?.text).toBe('reminder received: the tea is ready');
    const history = await t.get<{ records: Array<{ messageId: string; scheduledAt: string }> }>(
      `/api/sessions/demo/tasks/${view.id}/history`,
    );
    expect(history.body.records).toEqual([
      {
        scheduledAt: view.scheduledAt,
        deliveredAt: '2030-01-07T08:01:30.000Z',
        messageId: transcript[0]?.messageId,
        prompt: 'the tea is ready',
      },
    ]);
  });

  it('GET /api/events streams schedule/changed, delivery and clock events', async () => {
    t = await startTestHost();
    const events = await openEvents(t.url);
    expect(events.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await events.until((seen) => seen.some((e) => e.event === 'ready'));
    const { body: view } = await t.create('demo', { title: 'Tea', prompt: 'tea', after_seconds: 60 });
    await t.advance(60_000);
    const seen = await events.until((s) => s.some((e) => e.event === 'clock'));
    const names = seen.map((e) => e.event);
    expect(names).toEqual(['ready', 'schedule/changed', 'delivery', 'schedule/changed', 'clock']);
    expect(seen[1]?.data).toEqual({ sessionId: 'demo', ids: [view.id] });
    const delivery = seen[2]?.data as TranscriptAppend;
    expect(delivery.sessionId).toBe('demo');
    expect(delivery.lines.map((l) => l.role)).toEqual(['user', 'assistant']);
    expect(seen[4]?.data).toEqual({ now: '2030-01-07T08:01:00.000Z' });
    events.close();
  });

  it('close() ends open event streams and the Host stops', async () => {
    t = await startTestHost();
    const events = await openEvents(t.url);
    await events.until((seen) => seen.length > 0);
    await t.host.close();
    await expect(events.until(() => false)).rejects.toThrow(/stream ended/);
  });

  it('tasks, receipts and transcripts survive a restart on the same data folder', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-schedule-restart-'));
    try {
      t = await startTestHost({ keepDataDir: dataDir });
      await t.create('demo', { title: 'Tick', prompt: 'tick', every_seconds: 60 });
      await t.advance(60_000);
      await t.close();
      t = await startTestHost({ keepDataDir: dataDir, testClock: '2030-01-07T08:01:30.000Z' });
      const [entry] = (await t.get<CatalogEntry[]>('/api/catalog')).body;
      expect(entry?.lastDelivery?.messageId).toBe('msg-1');
      await t.advance(30_000);
      const lines = (await t.get<TranscriptLine[]>('/api/sessions/demo/transcript')).body;
      expect(lines.filter((l) => l.role === 'user').map((l) => l.messageId)).toEqual(['msg-1', 'msg-2']);
    } finally {
      await t.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
