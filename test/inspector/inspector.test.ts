// The live inspector on a real service (manual clock, fake Sessions, memory storage): the actor
// tree with states, last events and task targets; the ring of recent entries; the Session filter;
// superjson views; live updates; stopped actors; and the tree of a closed service.
import { sessionGroupId } from '../../machines/events.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { createScheduleInspector, parseInspectorSnapshot, type ScheduleInspector } from '../../src/inspector/index.ts';
import type { InspectorUpdate } from '../../src/inspector/types.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const MINUTE = 60_000;

interface Rig {
  readonly svc: ScheduleService;
  readonly clock: ManualClock;
  readonly sessions: FakeSessions;
  readonly inspector: ScheduleInspector;
}

const open: ScheduleService[] = [];
afterEach(async () => {
  for (const svc of open.splice(0)) await svc.close().catch(() => undefined);
});

async function rig(capacity = 1000): Promise<Rig> {
  const clock = createManualClock(T0);
  const sessions = createFakeSessions();
  const inspector = createScheduleInspector({ capacity, now: clock.now });
  const svc = await createScheduleService({ sessions, storage: memoryStorage(), clock, inspect: inspector.inspect });
  open.push(svc);
  clock.attach(svc);
  return { svc, clock, sessions, inspector };
}

async function create(r: Rig, sessionId: string, args: Record<string, unknown>): Promise<string> {
  const view = (await r.svc.callTool(sessionId, 'schedule_create', { prompt: 'p', title: 'Check the build', ...args })) as { id: string };
  await r.svc.whenIdle();
  return view.id;
}

async function advance(r: Rig, ms: number): Promise<void> {
  await r.clock.advance(ms);
  await r.svc.whenIdle();
}

/** The states a task actor went through, as recorded by its snapshot entries. */
const statesOf = (inspector: ScheduleInspector, id: string) =>
  inspector
    .events()
    .filter((e) => e.type === 'snapshot' && e.actorId === id)
    .map((e) => e.state);

describe('the actor tree', () => {
  it('lists the supervisor, the Session actor and the task with its state, last event, target and title', async () => {
    const r = await rig();
    const id = await create(r, 's1', { every_seconds: 600 });
    const actors = r.inspector.actors();
    const supervisor = actors.find((a) => a.kind === 'supervisor');
    const group = actors.find((a) => a.kind === 'group' && a.id.startsWith('sessions:'));
    const taskGroup = actors.find((a) => a.kind === 'group' && a.id.startsWith('tasks:'));
    const session = actors.find((a) => a.kind === 'session');
    const task = actors.find((a) => a.kind === 'task');
    expect(supervisor).toMatchObject({ id: 'supervisor', status: 'active', state: { running: 'idle' } });
    expect(supervisor?.parent).toBeUndefined();
    expect(group).toMatchObject({ id: sessionGroupId('s1'), parent: supervisor?.key, state: 'routing' });
    expect(group?.session).toBeUndefined();
    expect(session).toMatchObject({ id: 'session:s1', session: 's1', parent: group?.key, state: 'idle' });
    expect(task).toEqual({
      key: task?.key,
      id,
      kind: 'task',
      parent: taskGroup?.key,
      session: 's1',
      status: 'active',
      state: 'scheduled',
      lastEvent: 'xstate.init',
      target: '2030-01-01T08:10:00.000Z',
      title: 'Check the build',
    });
    // Parents come before their children.
    expect(actors.indexOf(supervisor!)).toBeLessThan(actors.indexOf(group!));
    expect(actors.indexOf(group!)).toBeLessThan(actors.indexOf(session!));
    expect(taskGroup).toMatchObject({ id: 'tasks:0', parent: session?.key, session: 's1', state: 'holding' });
    expect(actors.indexOf(session!)).toBeLessThan(actors.indexOf(taskGroup!));
    expect(actors.indexOf(session!)).toBeLessThan(actors.indexOf(task!));
  });

  it('a recurring task actor goes scheduled → overdue → delivering → scheduled, and its target advances', async () => {
    const r = await rig();
    const id = await create(r, 's1', { every_seconds: 600 });
    await advance(r, 10 * MINUTE);
    expect(statesOf(r.inspector, id)).toEqual(['scheduled', 'overdue', 'delivering', 'scheduled']);
    const events = r.inspector.events().filter((e) => e.type === 'snapshot' && e.actorId === id);
    expect(events.map((e) => e.event)).toEqual(['xstate.init', 'clock.tick', 'delivery.start', 'delivery.committed']);
    expect(events.every((e) => e.at >= Date.parse(T0) && e.session === 's1')).toBe(true);
    const task = r.inspector.actors().find((a) => a.id === id);
    expect(task).toMatchObject({ state: 'scheduled', lastEvent: 'delivery.committed', target: '2030-01-01T08:20:00.000Z' });
    expect(r.sessions.messages('s1')).toHaveLength(1);
  });

  it('the Session actor shows the attempt: idle → delivering → committing → idle, run by the attempt runner', async () => {
    const r = await rig();
    const updates: InspectorUpdate[] = [];
    r.inspector.subscribe((u) => updates.push(u));
    await create(r, 's1', { after_seconds: 60 });
    await create(r, 's1', { every_seconds: 600 });
    await advance(r, MINUTE);
    const sessionStates = r.inspector
      .events()
      .filter((e) => e.type === 'snapshot' && e.actorId === 'session:s1')
      .map((e) => e.state);
    expect(sessionStates).toEqual(['idle', 'delivering', 'committing', 'idle']);
    // The Session asked the supervisor's one attempt runner, which answered it: no actor per attempt.
    const asked = r.inspector.events().filter((e) => e.type === 'event' && e.actorId === 'attempts' && e.event === 'attempt.run');
    expect(asked.map((e) => [e.source, e.session])).toEqual([['session:s1', 's1']]);
    // The Session sends each task its tick and its start, and the events show it as their source.
    // Every other actor is still alive; the delivered one-shot's actor is gone.
    const TASK_DELIVERY_EVENTS = ['clock.tick', 'delivery.start', 'delivery.committed'];
    const others = new Set(
      r.inspector
        .actors()
        .filter((a) => a.kind !== 'task')
        .map((a) => a.id),
    );
    const toTasks = r.inspector
      .events()
      .filter((e) => e.type === 'event' && !others.has(e.actorId) && TASK_DELIVERY_EVENTS.includes(e.event ?? ''));
    expect(toTasks.map((e) => [e.event, e.source])).toEqual([
      ['clock.tick', 'session:s1'],
      ['delivery.start', 'session:s1'],
      ['delivery.committed', 'session:s1'],
    ]);
    const answered = r.inspector.events().filter((e) => e.type === 'event' && e.actorId === 'session:s1' && e.event === 'attempt.done');
    expect(answered).toHaveLength(1);
    expect(
      r.inspector
        .actors()
        .filter((a) => a.kind === 'effect')
        .map((a) => a.id),
    ).toEqual(['attempts', 'slots', 'timer']);
    // A live view's row of the runner shows the event it received, though its state never changes.
    const published = updates.find((u) => u.type === 'entry' && u.entry.actorId === 'attempts' && u.entry.event === 'attempt.run');
    expect(published?.type === 'entry' ? published.actor?.lastEvent : undefined).toBe('attempt.run');
  });

  it('a delivered one-shot and a deleted task leave the tree; their last entries say why', async () => {
    const r = await rig();
    const once = await create(r, 's1', { after_seconds: 60 });
    const gone = await create(r, 's1', { every_seconds: 3600 });
    await advance(r, MINUTE);
    expect(statesOf(r.inspector, once)).toEqual(['scheduled', 'overdue', 'delivering', 'inactive']);
    const lastStatus = (id: string) =>
      r.inspector
        .events()
        .filter((e) => e.actorId === id && e.type === 'snapshot')
        .at(-1)?.status;
    expect(lastStatus(once)).toBe('done');
    await r.svc.callTool('s1', 'schedule_delete', { id: gone });
    await r.svc.whenIdle();
    expect(lastStatus(gone)).toBe('stopped');
    // With no active task left the Session actor is retired too (its group stays).
    expect(r.inspector.actors().map((a) => a.kind)).toEqual(['supervisor', 'effect', 'effect', 'effect', 'group']);
    expect(r.inspector.view().counts).toEqual({ supervisor: 1, group: 1, session: 0, task: 0, effect: 3, other: 0 });
  });

  it('a closed service is not torn down actor by actor: the inspector keeps only the closed supervisor', async () => {
    const r = await rig();
    await create(r, 's1', { every_seconds: 600 });
    await create(r, 's2', { every_seconds: 600 });
    const updates: InspectorUpdate[] = [];
    r.inspector.subscribe((u) => updates.push(u));
    const groups = new Set([sessionGroupId('s1'), sessionGroupId('s2')]).size;
    // supervisor, attempt runner, slot runner, timer, the Session groups, two Sessions, their task groups, two tasks
    expect(r.inspector.actors()).toHaveLength(10 + groups);
    await r.svc.close();
    expect(r.inspector.actors()).toEqual([expect.objectContaining({ kind: 'supervisor', state: 'closed' })]);
    // One update drops the descendants still in the tree: all but the supervisor and the effect
    // actors already stopped on their own as the mailbox closed.
    const removed = updates.find((u) => u.type === 'removed');
    expect(removed?.type === 'removed' ? removed.keys.length : 0).toBe(8 + groups);
    r.inspector.reset();
    expect(r.inspector.view()).toMatchObject({ actors: [], events: [], ring: { dropped: 0 } });
    expect(updates.at(-1)).toEqual({ type: 'reset' });
  });
});

describe('filters, serialisation and updates', () => {
  it('filters by Session: that Session actor, its tasks and their ancestors; only its entries', async () => {
    const r = await rig();
    const a = await create(r, 's1', { every_seconds: 600 });
    const b = await create(r, 's2', { every_seconds: 600 });
    const view = r.inspector.view({ sessionId: 's2' });
    expect(view.actors.map((x) => x.id)).toEqual(['supervisor', sessionGroupId('s2'), 'session:s2', 'tasks:0', b]);
    expect(view.events.length).toBeGreaterThan(0);
    expect(view.events.every((e) => e.session === 's2')).toBe(true);
    expect(view.events.some((e) => e.actorId === a)).toBe(false);
    // The command that created b is attributed to s2 although it went to the supervisor.
    expect(view.events.some((e) => e.actorId === 'supervisor' && e.event === 'schedule.call')).toBe(true);
    expect(r.inspector.events({ sessionId: 's2', limit: 2 })).toEqual(view.events.slice(-2));
  });

  it('serialises with superjson and parses back to the same view', async () => {
    const r = await rig();
    await create(r, 's1', { daily: { time: '09:00', time_zone: 'Asia/Shanghai' } });
    const text = r.inspector.snapshot({ sessionId: 's1' });
    expect(parseInspectorSnapshot(text)).toEqual(r.inspector.view({ sessionId: 's1' }));
    const wire = JSON.parse(JSON.stringify(r.inspector)) as { json: { actors: unknown[] } };
    expect(wire.json.actors).toEqual(r.inspector.actors());
  });

  it('streams updates to subscribers, filtered by Session, until they unsubscribe', async () => {
    const r = await rig();
    const all: InspectorUpdate[] = [];
    const onlyS2: InspectorUpdate[] = [];
    const stopAll = r.inspector.subscribe((u) => all.push(u));
    r.inspector.subscribe((u) => onlyS2.push(u), { sessionId: 's2' });
    const id = await create(r, 's1', { every_seconds: 600 });
    await create(r, 's2', { every_seconds: 600 });
    const entries = all.flatMap((u) => (u.type === 'entry' ? [u.entry] : []));
    const firstSeq = entries[0]?.seq ?? 0;
    // Every entry recorded since the subscription, in order (the service's start came before it).
    expect(firstSeq).toBeGreaterThan(1);
    expect(entries).toEqual(r.inspector.events().filter((e) => e.seq >= firstSeq));
    const spawned = all.find((u) => u.type === 'entry' && u.entry.type === 'snapshot' && u.entry.actorId === id);
    expect(spawned?.type === 'entry' ? spawned.actor : undefined).toMatchObject({
      id,
      state: 'scheduled',
      target: '2030-01-01T08:10:00.000Z',
    });
    expect(onlyS2.length).toBeGreaterThan(0);
    expect(onlyS2.every((u) => u.type === 'entry' && u.entry.session === 's2')).toBe(true);
    stopAll();
    const before = all.length;
    await advance(r, 10 * MINUTE);
    expect(all).toHaveLength(before);
  });

  it('a throwing subscriber does not disturb the service', async () => {
    const errors: unknown[] = [];
    const clock = createManualClock(T0);
    const inspector = createScheduleInspector({ now: clock.now, onError: (e) => errors.push(e) });
    const sessions = createFakeSessions();
    const svc = await createScheduleService({ sessions, storage: memoryStorage(), clock, inspect: inspector.inspect });
    open.push(svc);
    clock.attach(svc);
    inspector.subscribe(() => {
      throw new Error('listener failed');
    });
    await svc.callTool('s1', 'schedule_create', { prompt: 'p', title: 't', after_seconds: 60 });
    await clock.advance(MINUTE);
    await svc.whenIdle();
    expect(sessions.messages('s1')).toHaveLength(1);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('after a reset of a running service, actors reappear in the tree as they act', async () => {
    const r = await rig();
    const id = await create(r, 's1', { every_seconds: 600 });
    r.inspector.reset();
    expect(r.inspector.actors()).toEqual([]);
    await advance(r, 10 * MINUTE);
    expect(r.inspector.actors().find((a) => a.id === id)).toMatchObject({ kind: 'task', state: 'scheduled', session: 's1' });
    expect(statesOf(r.inspector, id)).toEqual(['overdue', 'delivering', 'scheduled']);
  });

  it('after detach nothing is recorded', async () => {
    const r = await rig();
    r.inspector.detach();
    await create(r, 's1', { every_seconds: 600 });
    expect(r.inspector.view()).toMatchObject({ actors: [], events: [] });
  });
});
