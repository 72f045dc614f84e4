// The inspector's bounded summary on a real service (manual clock, fake Sessions, memory storage
// seeded with 400 tasks over 40 Sessions): at most `sessions` Sessions and `tasks` tasks, each with
// its ancestors, and counts of the rest; Sessions ranked by due work, then by their earliest next
// target; the text and Session filters; passivated tasks counted apart; entries only of the
// actors in view; one summary per query between two events. And the bounded top list it uses.
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { encodeDocument } from '../../src/domain/codec/index.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { createScheduleInspector, type InspectorSummary, type ScheduleInspector } from '../../src/inspector/index.ts';
import { TopList } from '../../src/inspector/topList.ts';
import { createScheduleService, type ScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock, type FakeSessions, type ManualClock } from '../../src/testing.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const MINUTE = 60_000;
const TASKS = 400;
const SESSIONS = 40;
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString();

/** Task i (1–400) is in Session `s<i % 40>`, due i minutes after T0, every day; odd ones back up, even ones deploy. */
function rows(): TaskRow[] {
  return Array.from({ length: TASKS }, (_, k) => {
    const i = k + 1;
    return {
      sessionId: `s${i % SESSIONS}`,
      status: 'active',
      record: {
        id: `sch_${i}`,
        kind: 'every',
        everySeconds: 86_400,
        title: `Task ${i}: ${i % 2 === 1 ? 'Backup' : 'Deploy'}`,
        prompt: `task ${i}`,
        scheduledAt: at(i),
      },
      deliveryHistory: { records: [], earlierRecordsUnavailable: false, earlierRecordsPruned: false },
    } as TaskRow;
  });
}

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

/** A service over the 400 tasks; every task has an actor unless `passivationHorizonMs` says otherwise. */
async function rig(passivationHorizonMs: number | null = null): Promise<Rig> {
  const clock = createManualClock(T0);
  const sessions = createFakeSessions();
  const inspector = createScheduleInspector({ now: clock.now });
  const storage = memoryStorage(encodeDocument({ tasks: rows(), nextTaskNumber: TASKS + 1 }));
  const svc = await createScheduleService({ sessions, storage, clock, inspect: inspector.inspect, config: { passivationHorizonMs } });
  open.push(svc);
  clock.attach(svc);
  await svc.whenIdle();
  return { svc, clock, sessions, inspector };
}

const tasksOf = (summary: InspectorSummary) => summary.actors.filter((a) => a.kind === 'task').map((a) => a.id);

describe('the bounded summary', () => {
  it('lists at most `sessions` Sessions and `tasks` tasks with their ancestors, and counts the rest', async () => {
    const r = await rig();
    expect(r.inspector.view().counts.task).toBe(TASKS);
    const summary = r.inspector.summary({ sessions: 5, tasks: 10 });
    expect(summary.sessions).toHaveLength(5);
    expect(summary.sessionCount).toBe(SESSIONS);
    expect(summary.taskCount).toBe(TASKS);
    expect(summary.counts.task).toBe(TASKS);
    // Earliest next target first: sch_1 … sch_10.
    expect(tasksOf(summary)).toEqual(Array.from({ length: 10 }, (_, k) => `sch_${k + 1}`));
    const keys = new Set(summary.actors.map((a) => a.key));
    expect(summary.actors.every((a) => a.parent === undefined || keys.has(a.parent))).toBe(true);
    // Parents come first.
    expect(summary.actors.every((a, i) => a.parent === undefined || summary.actors.findIndex((p) => p.key === a.parent) < i)).toBe(true);
    expect(summary.actors.filter((a) => a.kind === 'supervisor').map((a) => a.id)).toEqual(['supervisor']);
    expect(summary.actors.filter((a) => a.kind === 'effect').map((a) => a.id)).toEqual(['attempts', 'slots', 'timer']);
    // Entries only of the actors in view (and of gone ones: the effects that opened the schedule).
    expect(summary.events.length).toBeGreaterThan(0);
    const live = new Set(r.inspector.actors().map((a) => a.key));
    expect(summary.events.every((e) => keys.has(e.actorKey) || !live.has(e.actorKey))).toBe(true);
    expect(summary.events.some((e) => e.kind === 'task' && !keys.has(e.actorKey))).toBe(false);
    // The defaults: 50 Sessions (all 40 here) and 100 tasks.
    const full = r.inspector.summary();
    expect(full.sessions).toHaveLength(SESSIONS);
    expect(tasksOf(full)).toHaveLength(100);
  });

  it('ranks Sessions by due work, then by their earliest next target; due tasks come first', async () => {
    const r = await rig();
    expect(r.inspector.summary({ sessions: 3 }).sessions.map((s) => [s.sessionId, s.due, s.tasks, s.next])).toEqual([
      ['s1', 0, 10, at(1)],
      ['s2', 0, 10, at(2)],
      ['s3', 0, 10, at(3)],
    ]);
    // s5's delivery fails: its task retries while the others move on to tomorrow.
    r.sessions.failNext('s5', 'flush');
    await r.clock.advance(5 * MINUTE);
    await r.svc.whenIdle();
    const summary = r.inspector.summary({ sessions: 3, tasks: 3 });
    expect(summary.sessions.map((s) => [s.sessionId, s.due])).toEqual([
      ['s5', 1],
      ['s6', 0],
      ['s7', 0],
    ]);
    expect(summary.sessions[0]?.state).toBeDefined();
    expect(summary.actors.find((a) => a.id === 'sch_5')?.state).toBe('retrying');
    expect(tasksOf(summary)).toEqual(['sch_5', 'sch_6', 'sch_7']);
  });

  it('the text filter selects tasks by id, title or Session, case-insensitively; the Session filter narrows everything', async () => {
    const r = await rig();
    const backups = r.inspector.summary({ text: 'BACKUP', tasks: 5 });
    expect(backups.taskCount).toBe(TASKS / 2);
    expect(tasksOf(backups)).toEqual(['sch_1', 'sch_3', 'sch_5', 'sch_7', 'sch_9']);
    // Sessions are ranked whatever the text.
    expect(backups.sessionCount).toBe(SESSIONS);
    expect(r.inspector.summary({ text: 'sch_12' }).taskCount).toBe(11);
    expect(r.inspector.summary({ text: ' S39 ' }).taskCount).toBe(10);
    expect(r.inspector.summary({ text: 'nothing like it' })).toMatchObject({ taskCount: 0 });

    const one = r.inspector.summary({ sessionId: 's7', tasks: 3 });
    expect(one.sessions.map((s) => s.sessionId)).toEqual(['s7']);
    expect(one).toMatchObject({ sessionCount: 1, taskCount: 10 });
    expect(tasksOf(one)).toEqual(['sch_7', 'sch_47', 'sch_87']);
    expect(one.actors.every((a) => a.session === undefined || a.session === 's7')).toBe(true);
    expect(one.events.every((e) => e.session === 's7')).toBe(true);
    expect(r.inspector.summary({ sessionId: 'nobody' })).toMatchObject({ sessions: [], sessionCount: 0, taskCount: 0 });
  });

  it('passivated tasks the query selects are counted apart, at most `tasks` of them listed', async () => {
    const r = await rig(3_600_000);
    const summary = r.inspector.summary({ tasks: 5 });
    // Restored, only sch_1 is due within the first minute and has an actor; the other 399 wait as
    // rows, each until a minute before it falls due.
    expect(summary.taskCount).toBe(1);
    expect(summary.passivatedCount).toBe(399);
    expect(summary.passivated).toHaveLength(5);
    expect(summary.passivated?.every((p) => p.state === 'passivated')).toBe(true);
    const matching = r.inspector.summary({ text: 'sch_39' });
    expect(matching.taskCount).toBe(0);
    expect(matching.passivatedCount).toBe(11);
    expect(matching.passivated?.map((p) => p.id).sort()).toEqual(['sch_39', ...Array.from({ length: 10 }, (_, k) => `sch_39${k}`)]);
    // s1 holds sch_1 (live), and sch_121 and sch_161 among its passivated tasks.
    expect(r.inspector.summary({ text: 'sch_1', sessionId: 's1' })).toMatchObject({ taskCount: 1, passivatedCount: 2 });
  });

  it('is taken once per query between two inspection events', async () => {
    const r = await rig();
    const first = r.inspector.summary({ tasks: 5 });
    expect(r.inspector.summary({ tasks: 5 })).toBe(first);
    expect(r.inspector.summary({ tasks: 6 })).not.toBe(first);
    const created = (await r.svc.callTool('s1', 'schedule_create', { prompt: 'p', title: 'New', after_seconds: 30 })) as { id: string };
    await r.svc.whenIdle();
    const after = r.inspector.summary({ tasks: 5 });
    expect(after).not.toBe(first);
    expect(after.seq).toBeGreaterThan(first.seq);
    // Due soonest, so listed (the tree keeps creation order).
    expect(tasksOf(after)).toEqual(['sch_1', 'sch_2', 'sch_3', 'sch_4', created.id]);
  });
});

describe('the bounded top list', () => {
  it('keeps the best `capacity` of the items offered, best first, ties in offer order', () => {
    const values = Array.from({ length: 1000 }, (_, i) => (i * 7919) % 1009);
    const top = new TopList<number>(10, (a, b) => a - b);
    for (const v of values) top.offer(v);
    expect(top.toArray()).toEqual([...values].sort((a, b) => a - b).slice(0, 10));
    const pairs = new TopList<[number, string]>(3, (a, b) => a[0] - b[0]);
    for (const pair of [
      [2, 'a'],
      [1, 'b'],
      [2, 'c'],
      [1, 'd'],
      [3, 'e'],
    ] as Array<[number, string]>)
      pairs.offer(pair);
    expect(pairs.toArray().map((p) => p[1])).toEqual(['b', 'd', 'a']);
    const none = new TopList<number>(0, (a, b) => a - b);
    none.offer(1);
    expect(none.size).toBe(0);
  });
});
