// Delivery (docs/delivery.md): batching per Session, idempotency keys, edits and deletes that land while
// a delivery is in flight, and the limit on concurrent Session restores.
import type { DeliveryFlushedEvent } from '../../machines/events.ts';
import type { SessionGroupEvent } from '../../machines/sessionGroupMachine.ts';
import { MemoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { FollowupMessage, ScheduleAgent, ScheduleStorage, SessionController } from '../../src/ports.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { closeAll, create, HOUR, harness, MINUTE, tick } from '../support/harness.ts';
import { waitUntil } from '../support/waitUntil.ts';

afterEach(closeAll);

const T0 = '2030-01-01T08:00:00.000Z';

/** A Session controller whose flush waits until the test releases it. */
function gatedSessions() {
  const flushed: Array<{ sessionId: string; text: string; keys: string[] }> = [];
  const gates: Array<() => void> = [];
  let concurrentResolves = 0;
  let maxConcurrentResolves = 0;
  let resolveGate: (() => void) | null = null;
  let holdResolves = false;
  let seq = 0;
  const controller: SessionController = {
    async resolveAgent(sessionId) {
      concurrentResolves++;
      maxConcurrentResolves = Math.max(maxConcurrentResolves, concurrentResolves);
      if (holdResolves) await new Promise<void>((r) => gates.push(r));
      concurrentResolves--;
      const inbox: Array<{ text: string; keys: string[] }> = [];
      const agent: ScheduleAgent = {
        followup(message: FollowupMessage, meta) {
          inbox.push({ text: message.text, keys: meta?.idempotencyKeys ?? [] });
          return { messageId: `m${++seq}` };
        },
        async flush() {
          if (resolveGate === null) await new Promise<void>((r) => gates.push(r));
          for (const m of inbox.splice(0)) flushed.push({ sessionId, ...m });
        },
      };
      return agent;
    },
  };
  return {
    controller,
    flushed,
    holdFlushes: () => {
      resolveGate = null;
    },
    holdResolves: (on: boolean) => {
      holdResolves = on;
    },
    releaseOne: () => gates.shift()?.(),
    releaseAll: () => {
      while (gates.length > 0) gates.shift()?.();
    },
    get waiting() {
      return gates.length;
    },
    get maxConcurrentResolves() {
      return maxConcurrentResolves;
    },
  };
}

describe('batching', () => {
  it('recurring tasks of a Session share one batch; one-shots get one message each; keys name every reminder', async () => {
    const h = await harness({ start: T0 });
    const a = await create(h, 's1', { every_seconds: 600, prompt: 'a' });
    const b = await create(h, 's1', { cron: { expression: '*/10 * * * *', time_zone: 'UTC' }, prompt: 'b' });
    const c = await create(h, 's1', { after_seconds: 600, prompt: 'c' });
    await tick(h, 10 * MINUTE);
    const messages = h.sessions.messages('s1');
    expect(messages).toHaveLength(2);
    const at = '2030-01-01T08:10:00.000Z';
    expect(messages[0]?.idempotencyKeys).toEqual([`${c.id}@${at}`]);
    expect(messages[1]?.idempotencyKeys).toEqual([`${a.id}@${at}`, `${b.id}@${at}`]);
    expect(messages[1]?.text.startsWith('[SCHEDULE REMINDER BATCH]\n')).toBe(true);
  });

  it("a clock that jumped forwards delivers only each recurring task's latest missed occurrence", async () => {
    const h = await harness({ start: T0 });
    const a = await create(h, 's1', { every_seconds: 60 });
    const b = await create(h, 's1', { daily: { time: '09:00:00', time_zone: 'UTC' } });
    await h.clock.set('2030-01-03T09:30:30.000Z');
    await h.svc.whenIdle();
    const [message] = h.sessions.messages('s1');
    expect(h.sessions.messages('s1')).toHaveLength(1);
    expect(message?.idempotencyKeys).toEqual([`${b.id}@2030-01-03T09:00:00.000Z`, `${a.id}@2030-01-03T09:30:00.000Z`]);
    const list = (await h.svc.callTool('s1', 'schedule_list', {})) as Array<{ id: string; scheduledAt: string }>;
    expect(list.map((v) => [v.id, v.scheduledAt])).toEqual([
      [a.id, '2030-01-03T09:31:00.000Z'],
      [b.id, '2030-01-04T09:00:00.000Z'],
    ]);
  });
});

describe('flushed attempts on their way to the commit', () => {
  it('attempts flushed together reach the supervisor in one event; one flushed on its own comes alone', async () => {
    const gated = gatedSessions();
    const clock = createManualClock(T0);
    const handed: string[][] = [];
    const svc = await createScheduleService({
      sessions: gated.controller,
      storage: new MemoryStorage(),
      clock,
      inspect: (e) => {
        const event = (e as { event?: { type?: string } }).event;
        if (e.type === '@xstate.event' && event?.type === 'delivery.flushed')
          handed.push((event as DeliveryFlushedEvent).flushed.map((f) => f.sessionId).sort());
      },
    });
    try {
      for (const s of ['s1', 's2', 's3'])
        expect(await svc.callTool(s, 'schedule_create', { prompt: s, title: s, after_seconds: 600 })).not.toHaveProperty('code');
      await clock.advance(10 * MINUTE);
      await waitUntil(() => gated.waiting === 3, 'the three flushes to be held');
      gated.releaseOne();
      await waitUntil(() => handed.length === 1, 'the first flushed attempt to reach the supervisor');
      gated.releaseAll();
      await svc.whenIdle();
      expect(handed).toEqual([['s1'], ['s2', 's3']]);
      // Every one of them was committed: the one-shots have ended with their receipt.
      const catalog = await svc.remote.catalog();
      expect(catalog.map((e) => [e.sessionId, e.status, e.lastDelivery?.scheduledAt])).toEqual([
        ['s1', 'inactive', '2030-01-01T08:10:00.000Z'],
        ['s2', 'inactive', '2030-01-01T08:10:00.000Z'],
        ['s3', 'inactive', '2030-01-01T08:10:00.000Z'],
      ]);
    } finally {
      await svc.close();
    }
  });
});

/** A service on fake Sessions and memory storage, and every event its Session groups and Session actors receive, in order. */
async function serviceWithGroupEvents(clock: ReturnType<typeof createManualClock>) {
  const events: Array<SessionGroupEvent | { readonly type: 'direct'; readonly sent: string }> = [];
  const svc = await createScheduleService({
    sessions: createFakeSessions(),
    storage: new MemoryStorage(),
    clock,
    inspect: (e) => {
      const { actorRef, event, sourceRef } = e as {
        actorRef?: { id?: string };
        sourceRef?: { id?: string };
        event?: SessionGroupEvent;
      };
      if (e.type !== '@xstate.event' || event === undefined) return;
      if (actorRef?.id?.startsWith('sessions:')) events.push(event);
      // What the supervisor (the root, `x:…`) sends a Session actor itself.
      else if (actorRef?.id?.startsWith('session:') && sourceRef?.id?.startsWith('x:')) events.push({ type: 'direct', sent: event.type });
    },
  });
  return { svc, events };
}

describe('routes to the Session actors', () => {
  it('events for live Sessions go straight to their actor; those that spawn or retire a Session travel through its group', async () => {
    const clock = createManualClock(T0);
    const { svc, events } = await serviceWithGroupEvents(clock);
    const seen = () =>
      events.flatMap((event) =>
        event.type === 'direct'
          ? [`direct ${event.sent}`]
          : event.type === 'sessions.route'
            ? [`route ${event.routes.map((r) => (r.type === 'retire' ? 'retire' : r.event.type)).join(' ')}`]
            : [],
      );
    try {
      const v = (await svc.callTool('s1', 'schedule_create', { prompt: 'p', title: 't', every_seconds: 600 })) as { id: string };
      await clock.advance(10 * MINUTE);
      await svc.whenIdle();
      expect(await svc.callTool('s1', 'schedule_delete', { id: v.id })).not.toHaveProperty('code');
      await svc.whenIdle();
      expect(seen()).toEqual(['route tasks.spawn', 'direct tasks.due', 'direct delivery.settle', 'route retire']);
    } finally {
      await svc.close();
    }
  });
});

describe('changes while a delivery is in flight', () => {
  it('a title edit during the flush is kept, the receipt recorded and the task advanced normally', async () => {
    const gated = gatedSessions();
    const h = await harness({ start: T0, controller: gated.controller, attachClock: false });
    const v = await create(h, 's1', { every_seconds: 600 });
    await h.clock.advance(10 * MINUTE);
    await waitUntil(() => gated.waiting === 1, 'the flush to be held');
    const renamed = (await h.svc.callTool('s1', 'schedule_update', { id: v.id, title: 'Renamed' })) as { title: string };
    expect(renamed.title).toBe('Renamed');
    gated.releaseAll();
    await h.svc.whenIdle();
    const [entry] = await h.svc.remote.catalog();
    expect(entry).toMatchObject({ status: 'active', record: { title: 'Renamed', scheduledAt: '2030-01-01T08:20:00.000Z' } });
    expect(entry?.lastDelivery?.scheduledAt).toBe('2030-01-01T08:10:00.000Z');
  });

  it('a timing change during the flush wins: the receipt is recorded and the new target kept', async () => {
    const gated = gatedSessions();
    const h = await harness({ start: T0, controller: gated.controller, attachClock: false });
    const v = await create(h, 's1', { after_seconds: 600 });
    await h.clock.advance(10 * MINUTE);
    await waitUntil(() => gated.waiting === 1, 'the flush to be held');
    await h.svc.callTool('s1', 'schedule_update', { id: v.id, change: { kind: 'at', at: '2030-01-01T12:00:00Z' } });
    gated.releaseAll();
    await h.svc.whenIdle();
    const [entry] = await h.svc.remote.catalog();
    expect(entry).toMatchObject({ status: 'active', record: { kind: 'at', scheduledAt: '2030-01-01T12:00:00.000Z' } });
    expect(entry?.lastDelivery?.scheduledAt).toBe('2030-01-01T08:10:00.000Z');
  });

  it('a delete during the flush leaves the message delivered and records nothing', async () => {
    const gated = gatedSessions();
    const h = await harness({ start: T0, controller: gated.controller, attachClock: false });
    const v = await create(h, 's1', { every_seconds: 600 });
    await h.clock.advance(10 * MINUTE);
    await waitUntil(() => gated.waiting === 1, 'the flush to be held');
    expect(await h.svc.callTool('s1', 'schedule_delete', { id: v.id })).toEqual({ id: v.id, deleted: true });
    gated.releaseAll();
    await h.svc.whenIdle();
    expect(gated.flushed).toHaveLength(1);
    expect(await h.svc.remote.catalog()).toEqual([]);
    await tick(h, HOUR);
    expect(gated.flushed).toHaveLength(1);
  });
});

describe('cold Session restores', () => {
  it('at most maxConcurrentRestores resolveAgent calls run at once', async () => {
    const gated = gatedSessions();
    const h = await harness({ start: T0, controller: gated.controller, attachClock: false, config: { maxConcurrentRestores: 3 } });
    for (let i = 0; i < 10; i++) await create(h, `s${i}`, { after_seconds: 60 });
    gated.holdResolves(true);
    await h.clock.advance(MINUTE);
    await waitUntil(() => gated.waiting === 3, 'three restores to be held');
    gated.holdResolves(false);
    // Each release lets held restores and flushes go on, and the next ones take their places.
    while (gated.flushed.length < 10) {
      gated.releaseAll();
      await waitUntil(() => gated.waiting > 0 || gated.flushed.length === 10, 'the next restore or flush, or all ten flushed');
    }
    await h.svc.whenIdle();
    expect(gated.maxConcurrentResolves).toBe(3);
    expect(gated.flushed).toHaveLength(10);
  });
});

describe('an edit whose write lands after the delivery started', () => {
  it('with a target at the delivered occurrence: the task advances instead of delivering that occurrence again', async () => {
    const inner = new MemoryStorage();
    let release: (() => void) | null = null;
    const storage: ScheduleStorage = {
      open: () => inner.open(),
      close: () => inner.close(),
      async commit(batch) {
        const edit = batch.puts.some((row) => row.record.kind === 'every' && row.record.everySeconds === 300);
        if (edit && release === null) await new Promise<void>((resolve) => (release = resolve));
        return inner.commit(batch);
      },
    };
    const h = await harness({ start: T0, storage, attachClock: false });
    const v = await create(h, 's1', { every_seconds: 600 }); // due 08:10
    await h.clock.advance(5 * MINUTE); // 08:05
    // planned at 08:05: every 300 s → 08:10, the very instant the old rule is due; its write is held
    const edited = h.svc.callTool('s1', 'schedule_update', { id: v.id, change: { kind: 'every', every_seconds: 300 } });
    await waitUntil(() => release !== null, "the edit's write to be held");
    await h.clock.advance(5 * MINUTE); // 08:10: the old rule's delivery starts and is flushed
    await waitUntil(() => h.sessions.messages('s1').length > 0, 'the old rule to be delivered');
    expect(h.sessions.messages('s1')).toHaveLength(1);
    release!();
    expect(await edited).toMatchObject({ everySeconds: 300, scheduledAt: '2030-01-01T08:10:00.000Z' });
    await h.svc.whenIdle();
    await h.clock.advance(0);
    await h.svc.whenIdle();
    expect(h.sessions.messages('s1')).toHaveLength(1);
    const entry = await h.svc.remote.get({ sessionId: 's1', id: v.id });
    expect(entry).toMatchObject({
      record: { everySeconds: 300, scheduledAt: '2030-01-01T08:15:00.000Z' },
      lastDelivery: { scheduledAt: '2030-01-01T08:10:00.000Z' },
    });
  });
});

describe('Sessions retired by their deliveries', () => {
  it('a delivery that ends every active task of its Session retires the Session; one that leaves a task active does not', async () => {
    const clock = createManualClock(T0);
    const { svc, events } = await serviceWithGroupEvents(clock);
    const retired = () =>
      events.flatMap((event) =>
        event.type === 'sessions.route' ? event.routes.filter((r) => r.type === 'retire').map((r) => r.sessionId) : [],
      );
    try {
      // s1: two one-shots due together; s2: a one-shot and a recurring task due together.
      for (const args of [
        ['s1', { prompt: 'a', title: 'a', after_seconds: 60 }],
        ['s1', { prompt: 'b', title: 'b', after_seconds: 60 }],
        ['s2', { prompt: 'c', title: 'c', after_seconds: 60 }],
        ['s2', { prompt: 'd', title: 'd', every_seconds: 60 }],
      ] as const) {
        expect(await svc.callTool(args[0], 'schedule_create', args[1])).not.toHaveProperty('code');
      }
      await svc.whenIdle();
      await clock.advance(MINUTE);
      await svc.whenIdle();
      expect(retired()).toEqual(['s1']);
      expect((await svc.remote.list({ sessionId: 's2' })) as unknown[]).toHaveLength(1);
    } finally {
      await svc.close();
    }
  });
});
