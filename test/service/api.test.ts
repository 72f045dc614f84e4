// The service API around the mailbox (docs/management.md, docs/api.md): cancellation, unexpected errors, close,
// inspection, notifications, the legacy note and configuration.
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import { INTERNAL_ERROR_MESSAGE } from '../../src/domain/errors.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

const args = { prompt: 'p', title: 't', after_seconds: 600 };

describe('cancellation', () => {
  it('a signal aborted while the call waits in the mailbox persists nothing and rejects with its reason', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ storage });
    const controller = new AbortController();
    const first = h.svc.callTool('s1', 'schedule_create', args);
    const second = h.svc.callTool('s1', 'schedule_create', args, { signal: controller.signal });
    controller.abort(new Error('user went away'));
    await expect(second).rejects.toThrow('user went away');
    await first;
    expect((storage.document() as { tasks: unknown[] }).tasks).toHaveLength(1);
    expect(h.changes).toHaveLength(1);
  });
});

describe('unexpected errors', () => {
  it('become internal_error with the fixed message, logged with their cause', async () => {
    const h = await harness();
    const hostile = {
      prompt: 'p',
      title: 't',
      get after_seconds(): number {
        throw new Error('getter exploded');
      },
    };
    const result = await h.svc.callTool('s1', 'schedule_create', hostile);
    expect(result).toEqual({ code: 'internal_error', message: INTERNAL_ERROR_MESSAGE });
    const logged = h.logs.find((l) => l.level === 'error');
    expect(logged).toBeDefined();
    expect((logged!.data as { cause: Error }).cause.message).toBe('getter exploded');
    // the service keeps working
    expect((await create(h, 's1', { after_seconds: 60 })).id).toBe('sch_1');
  });

  it('an unknown tool name and a bad Session id are refused clearly', async () => {
    const h = await harness();
    expect(await h.svc.callTool('s1', 'schedule_frobnicate', {})).toMatchObject({ code: 'unknown_tool' });
    await expect(h.svc.callTool('', 'schedule_list', {})).rejects.toThrow(TypeError);
  });
});

describe('close', () => {
  it('drains accepted work: a create issued just before close is persisted', async () => {
    const storage = new MemoryStorage();
    const h = await harness({ storage });
    const pending = h.svc.callTool('s1', 'schedule_create', args);
    const closed = h.svc.close();
    expect(await pending).toMatchObject({ id: 'sch_1' });
    await closed;
    expect((storage.document() as { tasks: unknown[] }).tasks).toHaveLength(1);
    await expect(h.svc.callTool('s1', 'schedule_list', {})).rejects.toThrow(/closed/);
    await h.svc.close(); // closing twice is fine
  });

  it('cancels the timer: nothing fires after close', async () => {
    const h = await harness();
    await create(h, 's1', { after_seconds: 60 });
    await h.svc.close();
    expect(h.clock.pendingTimers).toBe(0);
    await h.clock.advance(MINUTE);
    expect(h.sessions.messages('s1')).toEqual([]);
  });
});

describe('inspection and notifications', () => {
  it("the inspect option receives the actor system's events, task actors included", async () => {
    const events: Array<{ type: string; actorRef?: { id?: string } }> = [];
    const clock = createManualClock('2030-01-01T08:00:00.000Z');
    const svc = await createScheduleService({
      sessions: createFakeSessions(),
      storage: new MemoryStorage(),
      clock,
      inspect: (e) => events.push(e as never),
    });
    clock.attach(svc);
    await svc.callTool('s1', 'schedule_create', args);
    const actorIds = new Set(events.filter((e) => e.type === '@xstate.actor').map((e) => e.actorRef?.id));
    expect(actorIds).toContain('session:s1');
    expect(actorIds).toContain('sch_1');
    await svc.close();
  });

  it('a listener that throws is logged and does not stop the others', async () => {
    const h = await harness();
    const seen: string[] = [];
    h.svc.subscribe(() => {
      throw new Error('bad listener');
    });
    h.svc.subscribe((c) => seen.push(c.ids.join()));
    await create(h, 's1', { after_seconds: 60 });
    expect(seen).toEqual(['sch_1']);
    expect(h.logs.some((l) => l.msg.includes('listener'))).toBe(true);
  });

  it('a delivery commit notifies schedule/changed for the delivered tasks', async () => {
    const h = await harness();
    const v = await create(h, 's1', { every_seconds: 60 });
    await tick(h, MINUTE);
    expect(h.changes.at(-1)).toEqual({ type: 'schedule/changed', sessionId: 's1', ids: [v.id] });
  });
});

describe('legacy sessions', () => {
  it('noteLegacySession folds the log and warns about active reminders without migrating them', async () => {
    const h = await harness();
    const events = [
      {
        version: 1,
        operation: 'create',
        schedule: { id: 'old-1', kind: 'after', prompt: 'Check', afterSeconds: 60, scheduledAt: '2029-01-01T00:00:00.000Z' },
      },
      { version: 1, operation: 'create', schedule: { id: 'old-2', kind: 'at', prompt: 'Done', scheduledAt: '2029-01-01T00:00:00.000Z' } },
      { version: 1, operation: 'dispatch', id: 'old-2' },
    ];
    const note = h.svc.noteLegacySession('s1', events);
    expect([...note.active.keys()]).toEqual(['old-1']);
    expect(note.warning).toContain('schedule_create');
    expect(h.logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([note.warning]);
    expect(await h.svc.remote.catalog()).toEqual([]);
    expect(() => h.svc.noteLegacySession('s1', [{ version: 2 }])).toThrow(expect.objectContaining({ code: 'corrupt_schedule_log' }));
  });
});

describe('configuration', () => {
  it.each([
    [{ deliveryHistoryDays: 0 }],
    [{ deliveryHistoryRecords: 1.5 }],
    [{ retry: { initialMs: 0, maxMs: 10 } }],
    [{ retry: { initialMs: 100, maxMs: 10 } }],
    [{ retry: true }],
    [{ maxConcurrentRestores: 0 }],
    [{ maxWaitMs: 2 ** 31 }],
    [{ deliverySummaryIntervalMs: 0 }],
    [{ deliverySummaryIntervalMs: 86_400_001 }],
    [{ surprise: 1 }],
  ])('%j is refused with invalid_rule', async (config) => {
    await expect(
      createScheduleService({ sessions: createFakeSessions(), storage: new MemoryStorage(), config: config as never }),
    ).rejects.toMatchObject({
      code: 'invalid_rule',
    });
  });

  it('a corrupt stored domain rejects startup with corrupt_schedule_log', async () => {
    const storage = new MemoryStorage({ version: 2, tasks: [] });
    await expect(createScheduleService({ sessions: createFakeSessions(), storage })).rejects.toMatchObject({
      code: 'corrupt_schedule_log',
    });
  });
});
