// Passivation: an active task due beyond the horizon (`passivationHorizonMs`, default one hour) is
// kept only as its row, without a task actor, and its actor is spawned before it falls due. Reads
// and changes answer the same as with every task live; deliveries are on time and happen once.
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import type { ScheduleConfig } from '../../src/domain/serviceOptions.ts';
import { createScheduleInspector, parseInspectorSnapshot, type ScheduleInspector } from '../../src/inspector/index.ts';
import type { ScheduleStorage } from '../../src/ports.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const MINUTE = 60_000;
const HOUR = 3_600_000;
const at = (ms: number): string => new Date(Date.parse(T0) + ms).toISOString();

interface Rig {
  readonly svc: ScheduleService;
  readonly clock: ManualClock;
  readonly sessions: FakeSessions;
  readonly storage: ScheduleStorage;
  readonly inspector: ScheduleInspector;
}

const open: ScheduleService[] = [];
afterEach(async () => {
  for (const svc of open.splice(0)) await svc.close().catch(() => undefined);
});

async function rig(
  options: { config?: ScheduleConfig; storage?: ScheduleStorage; clock?: ManualClock; sessions?: FakeSessions } = {},
): Promise<Rig> {
  const clock = options.clock ?? createManualClock(T0);
  const sessions = options.sessions ?? createFakeSessions();
  const storage = options.storage ?? memoryStorage();
  const inspector = createScheduleInspector({ now: clock.now });
  const svc = await createScheduleService({
    sessions,
    storage,
    clock,
    inspect: inspector.inspect,
    logger: { warn() {}, error() {} },
    ...(options.config === undefined ? {} : { config: options.config }),
  });
  open.push(svc);
  clock.attach(svc);
  return { svc, clock, sessions, storage, inspector };
}

async function close(r: Rig): Promise<void> {
  open.splice(open.indexOf(r.svc), 1);
  await r.svc.close();
}

async function create(r: Rig, sessionId: string, args: Record<string, unknown>): Promise<string> {
  const view = await r.svc.callTool(sessionId, 'schedule_create', { prompt: 'p', title: 't', ...args });
  if ('code' in view) throw new Error(`create failed: ${view.code}: ${view.message}`);
  await r.svc.whenIdle();
  return view.id;
}

async function advance(r: Rig, ms: number): Promise<void> {
  await r.clock.advance(ms);
  await r.svc.whenIdle();
}

/** The ids of the live task actors. */
const taskActors = (r: Rig): string[] =>
  r.inspector
    .actors()
    .filter((a) => a.kind === 'task')
    .map((a) => a.id)
    .sort();

/** The task ids of the reminders a Session received, one per delivered occurrence. */
const delivered = (r: Rig, sessionId: string): string[] =>
  r.sessions.messages(sessionId).flatMap((m) => m.idempotencyKeys.map((k) => k.split('@')[0] ?? ''));

describe('passivation', () => {
  it('a task beyond the horizon has no actor, and reads and changes answer as with a live one', async () => {
    const on = await rig();
    const off = await rig({ config: { passivationHorizonMs: null } });
    for (const r of [on, off]) {
      await create(r, 's1', { at: at(3 * HOUR) });
      await create(r, 's1', { after_seconds: 600 });
      await create(r, 's1', { every_seconds: 86_400 });
    }
    expect(taskActors(on)).toEqual(['sch_2']);
    expect(taskActors(off)).toEqual(['sch_1', 'sch_2', 'sch_3']);
    expect(on.inspector.view().passivated?.map((p) => [p.id, p.state])).toEqual([
      ['sch_1', 'passivated'],
      ['sch_3', 'passivated'],
    ]);
    expect(off.inspector.view().passivated).toBeUndefined();
    const view = parseInspectorSnapshot(on.inspector.snapshot({ sessionId: 's1' }));
    expect(view.passivatedCount).toBe(2);
    expect(view.passivated?.[0]).toEqual({ id: 'sch_1', session: 's1', state: 'passivated', target: at(3 * HOUR), title: 't' });
    expect(on.inspector.view({ sessionId: 's2' }).passivated).toBeUndefined();

    const reads = async (r: Rig) => ({
      list: await r.svc.remote.list({ sessionId: 's1' }),
      catalog: await r.svc.remote.catalog(),
      get: await r.svc.remote.get({ sessionId: 's1', id: 'sch_1' }),
      history: await r.svc.remote.history({ sessionId: 's1', id: 'sch_3', limit: 10 }),
      tool: await r.svc.callTool('s1', 'schedule_list', {}),
      drift: await r.svc.remote.drift(),
    });
    expect(await reads(on)).toEqual(await reads(off));

    const changes = async (r: Rig) => ({
      title: await r.svc.callTool('s1', 'schedule_update', { id: 'sch_1', title: 'Later' }),
      moved: await r.svc.callTool('s1', 'schedule_update', { id: 'sch_3', change: { kind: 'at', at: at(5 * HOUR) } }),
      paused: await r.svc.remote.pause({ sessionId: 's1', id: 'sch_1' }),
      resumed: await r.svc.remote.resume({ sessionId: 's1', id: 'sch_1' }),
      deleted: await r.svc.callTool('s1', 'schedule_delete', { id: 'sch_3' }),
      list: await r.svc.remote.list({ sessionId: 's1' }),
    });
    expect(await changes(on)).toEqual(await changes(off));
    expect(taskActors(on)).toEqual(['sch_2']);
    expect(on.inspector.view().passivated?.map((p) => p.id)).toEqual(['sch_1']);

    await advance(on, 3 * HOUR);
    await advance(off, 3 * HOUR);
    expect(delivered(on, 's1')).toEqual(delivered(off, 's1'));
    expect(delivered(on, 's1').sort()).toEqual(['sch_1', 'sch_2']);
  });

  it('activates a task before its due instant and delivers it on time', async () => {
    const r = await rig();
    const id = await create(r, 's1', { at: at(3 * HOUR) });
    expect(taskActors(r)).toEqual([]);
    await advance(r, 2 * HOUR - MINUTE);
    expect(taskActors(r)).toEqual([]);
    await advance(r, MINUTE);
    expect(taskActors(r)).toEqual([id]);
    expect(r.inspector.view().passivated).toBeUndefined();
    await advance(r, HOUR - 1);
    expect(delivered(r, 's1')).toEqual([]);
    await advance(r, 1);
    expect(r.sessions.messages('s1').map((m) => m.idempotencyKeys)).toEqual([[`${id}@${at(3 * HOUR)}`]]);
  });

  it('a clock jump far past many passivated tasks activates and delivers each once; recurring ones coalesce', async () => {
    const r = await rig();
    const once: string[] = [];
    for (let i = 0; i < 40; i++) once.push(await create(r, `s${i % 4}`, { at: at((2 + i) * HOUR) }));
    const every = await create(r, 's0', { every_seconds: 7200 });
    const daily = await create(r, 's1', { daily: { time: '20:00:00', time_zone: 'UTC' } });
    expect(taskActors(r)).toEqual([]);
    // The wall clock jumps ten days: one wake finds every task due at once.
    await r.clock.set(at(10 * 24 * HOUR));
    await r.svc.whenIdle();
    const all = [0, 1, 2, 3].flatMap((i) => delivered(r, `s${i}`)).sort();
    expect(all).toEqual([...once, every, daily].sort());
    const catalog = await r.svc.remote.catalog();
    for (const id of once) expect(catalog.find((e) => e.record.id === id)?.status).toBe('inactive');
    // Both recurring tasks are live now (they stay live) and next due after the jump.
    expect(taskActors(r)).toEqual([every, daily].sort());
    await advance(r, 2 * HOUR);
    expect(delivered(r, 's0').filter((id) => id === every)).toHaveLength(2);
  });

  it('an update that brings the target within the horizon activates the task at once', async () => {
    const r = await rig();
    const id = await create(r, 's1', { at: at(5 * HOUR) });
    await r.svc.callTool('s1', 'schedule_update', { id, change: { kind: 'at', at: at(4 * HOUR) } });
    await r.svc.whenIdle();
    expect(taskActors(r)).toEqual([]);
    await r.svc.callTool('s1', 'schedule_update', { id, change: { kind: 'at', at: at(30 * MINUTE) } });
    await r.svc.whenIdle();
    expect(taskActors(r)).toEqual([id]);
    await advance(r, 30 * MINUTE);
    expect(delivered(r, 's1')).toEqual([id]);
  });

  it('a live task whose target moves beyond the horizon stays live and is delivered on time', async () => {
    const r = await rig();
    const id = await create(r, 's1', { after_seconds: 600 });
    await r.svc.callTool('s1', 'schedule_update', { id, change: { kind: 'at', at: at(5 * HOUR) } });
    await r.svc.whenIdle();
    expect(taskActors(r)).toEqual([id]);
    expect(r.inspector.view().passivated).toBeUndefined();
    await advance(r, 5 * HOUR - 1);
    expect(delivered(r, 's1')).toEqual([]);
    await advance(r, 1);
    expect(delivered(r, 's1')).toEqual([id]);
  });

  it('a paused task is passivated; run now activates and delivers it', async () => {
    const storage = memoryStorage();
    const first = await rig({ storage });
    const id = await create(first, 's1', { every_seconds: 600 });
    await first.svc.remote.pause({ sessionId: 's1', id });
    await close(first);
    const r = await rig({ storage });
    expect(taskActors(r)).toEqual([]);
    expect(r.inspector.view().passivated?.map((p) => p.id)).toEqual([id]);
    await advance(r, 48 * HOUR);
    expect(delivered(r, 's1')).toEqual([]);
    await r.svc.remote.trigger({ sessionId: 's1', id });
    await r.svc.whenIdle();
    expect(taskActors(r)).toEqual([id]);
    await advance(r, 0);
    expect(delivered(r, 's1')).toEqual([id]);
    expect(await r.svc.remote.list({ sessionId: 's1' })).toMatchObject([{ id, state: 'paused' }]);
  });

  it('after a restart only tasks within the horizon get actors; the others are delivered on time', async () => {
    const storage = memoryStorage();
    const sessions = createFakeSessions();
    const first = await rig({ storage, sessions });
    const near = await create(first, 's1', { after_seconds: 1800 });
    const far = await create(first, 's1', { after_seconds: 6 * 3600 });
    const farther = await create(first, 's2', { at: at(30 * HOUR) });
    expect(taskActors(first)).toEqual([near]);
    await close(first);
    const r = await rig({ storage, sessions, clock: createManualClock(at(HOUR)) });
    expect(taskActors(r)).toEqual([near]);
    await advance(r, 0);
    expect(delivered(r, 's1')).toEqual([near]);
    await advance(r, 4 * HOUR);
    expect(taskActors(r)).toEqual([far]);
    await advance(r, HOUR);
    expect(delivered(r, 's1')).toEqual([near, far]);
    await advance(r, 24 * HOUR);
    expect(delivered(r, 's2')).toEqual([farther]);
  });

  it('after a restart a task within the horizon gets its actor a minute before it falls due', async () => {
    const storage = memoryStorage();
    const sessions = createFakeSessions();
    const first = await rig({ storage, sessions });
    const soon = await create(first, 's1', { after_seconds: 50 });
    const later = await create(first, 's1', { after_seconds: 1800 });
    const edited = await create(first, 's2', { after_seconds: 2400 });
    expect(taskActors(first)).toEqual([soon, later, edited].sort());
    await close(first);
    const r = await rig({ storage, sessions, clock: createManualClock(T0) });
    expect(taskActors(r)).toEqual([soon]);
    expect(r.inspector.view().passivatedCount).toBe(2);
    // A change within the horizon activates at once, as it does for any passivated task.
    await r.svc.callTool('s2', 'schedule_update', { id: edited, title: 'moved' });
    await r.svc.whenIdle();
    expect(taskActors(r)).toEqual([soon, edited].sort());
    await advance(r, 29 * MINUTE - 1);
    expect(taskActors(r)).toEqual([edited]); // the one-shot `soon` was delivered and ended
    expect(delivered(r, 's1')).toEqual([soon]);
    await advance(r, 1);
    expect(taskActors(r)).toEqual([edited, later].sort());
    await advance(r, MINUTE);
    expect(delivered(r, 's1')).toEqual([soon, later]);
    await advance(r, 10 * MINUTE);
    expect(delivered(r, 's2')).toEqual([edited]);
  });

  it('deletes and a Session stop of passivated tasks leave nothing to deliver', async () => {
    const r = await rig();
    const a = await create(r, 's1', { at: at(3 * HOUR) });
    await create(r, 's2', { at: at(3 * HOUR) });
    await create(r, 's2', { every_seconds: 86_400 });
    const near = await create(r, 's3', { after_seconds: 60 });
    await create(r, 's3', { at: at(3 * HOUR) });
    expect(await r.svc.callTool('s1', 'schedule_delete', { id: a })).toMatchObject({ deleted: true });
    await r.svc.archive.sessionStop('s2');
    await r.svc.archive.sessionStop('s3');
    await r.svc.whenIdle();
    expect(taskActors(r)).toEqual([]);
    expect(r.inspector.actors().filter((x) => x.kind === 'session')).toEqual([]);
    expect(r.inspector.view().passivated).toBeUndefined();
    await advance(r, 5 * 24 * HOUR);
    expect(['s1', 's2', 's3'].flatMap((s) => delivered(r, s))).toEqual([]);
    expect(near).toBe('sch_4');
    // A Session whose tasks were all passivated gets its actor back with a new near task.
    const again = await create(r, 's2', { after_seconds: 60 });
    expect(taskActors(r)).toEqual([again]);
    await advance(r, MINUTE);
    expect(delivered(r, 's2')).toEqual([again]);
  });

  it('with passivationHorizonMs: null every active task keeps a live actor', async () => {
    const storage = memoryStorage();
    const first = await rig({ storage, config: { passivationHorizonMs: null } });
    const ids = [await create(first, 's1', { at: at(30 * 24 * HOUR) }), await create(first, 's1', { every_seconds: 86_400 })];
    expect(taskActors(first)).toEqual(ids);
    await close(first);
    const r = await rig({ storage, config: { passivationHorizonMs: null } });
    expect(taskActors(r)).toEqual(ids);
    expect(r.inspector.view().passivated).toBeUndefined();
  });

  it('rejects a bad horizon with invalid_rule', async () => {
    for (const passivationHorizonMs of [-1, 1.5, 'soon']) {
      await expect(
        createScheduleService({ sessions: createFakeSessions(), storage: memoryStorage(), config: { passivationHorizonMs } as never }),
      ).rejects.toMatchObject({ code: 'invalid_rule' });
    }
  });
});
