// Every accepted run now is delivered once (SPEC §15): its idempotency key names the delivery it
// follows, so a run now at the clock reading of an earlier run now, or of an occurrence already
// delivered, is never taken for a redelivery by a Session that drops known keys — while a run now
// that failed and is tried again repeats its key.
import type { SessionController } from '../../src/ports.ts';
import { closeAll, create, HOUR, harness, tick } from '../support/harness.ts';

afterEach(closeAll);

/** Sessions that drop a followup whose keys were all seen before, answering the earlier message id. */
function dedupingSessions(): SessionController & { sent: Array<{ messageId: string; keys: string[] }>; failFlushes: number } {
  const seen = new Map<string, string>();
  const sent: Array<{ messageId: string; keys: string[] }> = [];
  const controller = {
    sent,
    failFlushes: 0,
    async resolveAgent() {
      const appended: Array<{ messageId: string; keys: string[] }> = [];
      return {
        followup(_message: { text: string }, meta?: { idempotencyKeys: string[] }) {
          const keys = meta?.idempotencyKeys ?? [];
          const known = keys.length > 0 && keys.every((k) => seen.has(k));
          if (known) return { messageId: seen.get(keys[0] as string) as string };
          const messageId = `m${sent.length + appended.length + 1}`;
          appended.push({ messageId, keys });
          return { messageId };
        },
        async flush() {
          if (controller.failFlushes > 0) {
            controller.failFlushes--;
            throw new Error('flush failed');
          }
          for (const m of appended.splice(0)) {
            for (const k of m.keys) seen.set(k, m.messageId);
            sent.push(m);
          }
        },
      };
    },
  };
  return controller;
}

describe('run-now keys', () => {
  it('two run-nows at one clock reading are two deliveries with distinct keys', async () => {
    const sessions = dedupingSessions();
    const h = await harness({ controller: sessions });
    const view = await create(h, 's1', { every_seconds: 3600 });
    await h.svc.remote.trigger({ sessionId: 's1', id: view.id });
    await tick(h, 0);
    await h.svc.remote.trigger({ sessionId: 's1', id: view.id });
    await tick(h, 0);
    expect(sessions.sent).toHaveLength(2);
    const [first, second] = sessions.sent.map((m) => m.keys[0]);
    expect(first).toBe(`${view.id}@2030-01-01T08:00:00.000Z#run-now`);
    expect(second).toBe(`${view.id}@2030-01-01T08:00:00.000Z#run-now:m1`);
    expect(h.logs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('a run now at the instant of an occurrence already delivered is delivered, with a key unlike the occurrence', async () => {
    const sessions = dedupingSessions();
    const h = await harness({ controller: sessions });
    const view = await create(h, 's1', { every_seconds: 3600 });
    await tick(h, HOUR);
    await h.svc.remote.trigger({ sessionId: 's1', id: view.id });
    await tick(h, 0);
    expect(sessions.sent.map((m) => m.keys)).toEqual([
      [`${view.id}@2030-01-01T09:00:00.000Z`],
      [`${view.id}@2030-01-01T09:00:00.000Z#run-now:m1`],
    ]);
    const history = await h.svc.remote.history({ sessionId: 's1', id: view.id, limit: 10 });
    expect(history).toMatchObject({ records: [{ messageId: 'm2', trigger: 'manual' }, { messageId: 'm1' }] });
  });

  it('a run now whose flush failed is tried again under the same key', async () => {
    const sessions = dedupingSessions();
    const h = await harness({ controller: sessions, config: { retry: { initialMs: 1000, maxMs: 1000 } } });
    const view = await create(h, 's1', { at: '2030-01-02T00:00:00Z' });
    sessions.failFlushes = 1;
    await h.svc.remote.trigger({ sessionId: 's1', id: view.id });
    await tick(h, 0);
    expect(sessions.sent).toEqual([]);
    await tick(h, 1000);
    expect(sessions.sent.map((m) => m.keys)).toEqual([[`${view.id}@2030-01-01T08:00:00.000Z#run-now`]]);
  });
});
