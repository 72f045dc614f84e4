// The scheduler alone, over a stub clock and stub rows: a wake that finds more due tasks than a
// turn holds takes them from its queue a Session at a time (scheduler.ts). The first Sessions go
// out before the rows of the last are read, each Session still with all of its due tasks — those
// keyed at other instants, its parked ones — and a clock that steps back between turns, a stop and
// a drain keep their meaning.
import type { DeliveredReminder, DueTasks, FlushedAttempt, WaitingReceipt } from '../../machines/events.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { resolveConfig } from '../../src/runtime/config.ts';
import { HAND_OUT_TASKS, SCAN_ROWS, Scheduler } from '../../src/runtime/scheduler.ts';

const T = Date.parse('2030-01-01T09:00:00.000Z');

/** A clock that stands still, with at most one timer (the scheduler's), fired by the test. */
class StubClock {
  at = T;
  timer: { fn: () => void; ms: number } | null = null;
  now = (): number => this.at;
  setTimeout = (fn: () => void, ms: number): unknown => {
    this.timer = { fn, ms };
    return this.timer;
  };
  clearTimeout = (handle: unknown): void => {
    if (this.timer === handle) this.timer = null;
  };
  /** Moves the clock to `at` and fires the armed timer. */
  fire(at: number): void {
    const timer = this.timer;
    if (timer === null) throw new Error('no timer armed');
    this.timer = null;
    this.at = at;
    timer.fn();
  }
}

interface Handed {
  readonly now: number;
  readonly due: readonly DueTasks[];
}

/** A scheduler over `sessions` Sessions of stub rows, recording what it hands out and which Sessions' rows it read. */
function setup(sessions: number, tasksOf: (session: number) => number) {
  const clock = new StubClock();
  const rows = new Map<string, TaskRow>();
  const bySession = new Map<string, TaskRow[]>();
  let n = 0;
  for (let s = 0; s < sessions; s++) {
    const list: TaskRow[] = [];
    for (let t = 0; t < tasksOf(s); t++) {
      const row = { record: { id: `sch_${++n}` }, sessionId: `s${s}`, status: 'active' } as unknown as TaskRow;
      rows.set(row.record.id, row);
      list.push(row);
    }
    bySession.set(`s${s}`, list);
  }
  const handed: Handed[] = [];
  const commits: FlushedAttempt[] = [];
  /** The Sessions whose rows were read, in order. */
  const read: string[] = [];
  const scheduler = new Scheduler({
    clock,
    config: resolveConfig({}),
    sessionOf: (id) => rows.get(id)?.sessionId,
    logger: { warn() {}, error() {} },
    onDue: (now, due) => handed.push({ now, due }),
    onCommitDue: (flushed) => commits.push(...flushed),
    rowOf: (id) => {
      const row = rows.get(id);
      if (row !== undefined) read.push(row.sessionId);
      return row;
    },
    activeCountOf: (sessionId) => bySession.get(sessionId)?.length ?? 0,
    activeRowsOf: (sessionId) => {
      read.push(sessionId);
      return bySession.get(sessionId) ?? [];
    },
    onActivate: () => {},
  });
  const idsOf = (s: number): string[] => (bySession.get(`s${s}`) ?? []).map((row) => row.record.id);
  /** The instant each task was last keyed at. */
  const keys = new Map<string, number>();
  const key = (id: string, at: number): void => {
    keys.set(id, at);
    scheduler.reported({ type: 'task.wake', id, waits: 'due', at, failure: undefined });
  };
  const park = (id: string): void => {
    keys.delete(id);
    scheduler.reported({ type: 'task.wake', id, waits: 'parked', at: undefined, failure: undefined });
  };
  /** Runs the turns until none waits. */
  const settle = async (): Promise<void> => {
    while (scheduler.handingOut) await new Promise((resolve) => setImmediate(resolve));
  };
  /** Each Session handed out, in order, with its ids sorted. */
  const sessionsHanded = (): Array<[string, string[]]> =>
    handed.flatMap((h) => h.due.map((d): [string, string[]] => [d.sessionId, [...d.ids].sort()]));
  return { clock, scheduler, handed, commits, read, idsOf, keys, key, park, settle, sessionsHanded };
}

const sorted = (ids: readonly string[]): string[] => [...ids].sort();

describe('a wake with more due tasks than a turn holds', () => {
  const SESSIONS = 100;
  const TASKS = 10;

  /** Session s's first task keyed at T + s, its others half at T + s and half at T + 500 + s. */
  function keyed() {
    const b = setup(SESSIONS, () => TASKS);
    for (let s = 0; s < SESSIONS; s++) {
      for (const [t, id] of b.idsOf(s).entries()) b.key(id, T + s + (t % 2 === 1 ? 500 : 0));
    }
    b.scheduler.rearm();
    // Keying a task reads its row: only what the wake reads counts.
    b.read.length = 0;
    return b;
  }

  it('hands the first Sessions out in the wake, before the rows of the last are read', async () => {
    const b = keyed();
    b.clock.fire(T + 1000);

    expect(b.handed).toHaveLength(1);
    const first = b.handed[0]?.due ?? [];
    expect(first[0]?.sessionId).toBe('s0');
    expect(b.read).not.toContain(`s${SESSIONS - 1}`);
    expect(b.scheduler.handingOut).toBe(true);

    await b.settle();
    // Earliest due first, each Session once with all of its due tasks, whatever instant each is keyed at.
    expect(b.sessionsHanded()).toEqual(Array.from({ length: SESSIONS }, (_, s) => [`s${s}`, sorted(b.idsOf(s))]));
    expect(b.handed.every((h) => h.now === T + 1000)).toBe(true);
    // Full turns: one more Session would not have fitted.
    const sizes = b.handed.map((h) => h.due.reduce((n, d) => n + d.ids.length, 0));
    for (const size of sizes) expect(size).toBeLessThanOrEqual(HAND_OUT_TASKS);
    for (const size of sizes.slice(0, -1)) expect(size).toBeGreaterThan(HAND_OUT_TASKS - TASKS);
  });

  it('arms the timer for the next task only once the last due Session is taken', async () => {
    const b = keyed();
    const later = b.idsOf(SESSIONS - 1)[0] as string;
    b.key(later, T + 5000);
    b.clock.fire(T + 1000);
    expect(b.clock.timer).toBeNull();
    await b.settle();
    expect(b.clock.timer?.ms).toBe(4000);
    expect(b.sessionsHanded().find(([session]) => session === `s${SESSIONS - 1}`)?.[1]).not.toContain(later);
  });

  it('takes nothing early when the clock steps back between turns', async () => {
    const b = keyed();
    b.clock.fire(T + 1000);
    b.clock.at = T + 60;
    await b.settle();
    // The Sessions whose first task is keyed by the clock, each task keyed by the `now` it went out with.
    expect(b.sessionsHanded().map(([session]) => session)).toEqual(Array.from({ length: 61 }, (_, s) => `s${s}`));
    for (const h of b.handed) for (const d of h.due) for (const id of d.ids) expect(b.keys.get(id)).toBeLessThanOrEqual(h.now);
    const afterStep = b.handed.filter((h) => h.now === T + 60).flatMap((h) => h.due);
    expect(afterStep.length).toBeGreaterThan(0);
    for (const d of afterStep) {
      const s = Number(d.sessionId.slice(1));
      expect(sorted(d.ids), d.sessionId).toEqual(sorted(b.idsOf(s).filter((_, t) => t % 2 === 0)));
    }
    // The next is Session 61's first task.
    expect(b.clock.timer?.ms).toBe(1);
  });

  it('hands out each Session’s parked tasks with its due ones, and the others after the last due Session', async () => {
    const b = setup(SESSIONS + 1, () => TASKS);
    for (let s = 0; s < SESSIONS; s++) for (const id of b.idsOf(s)) b.key(id, T + s);
    const parkedWithDue = b.idsOf(SESSIONS - 1)[3] as string;
    b.park(parkedWithDue);
    const parkedAlone = b.idsOf(SESSIONS).slice(0, 2);
    for (const id of parkedAlone) b.park(id);
    b.scheduler.rearm();
    b.clock.fire(T + 1000);
    await b.settle();
    const handed = b.sessionsHanded();
    expect(handed).toHaveLength(SESSIONS + 1);
    expect(handed.at(-2)).toEqual([`s${SESSIONS - 1}`, sorted(b.idsOf(SESSIONS - 1))]);
    expect(handed.at(-1)).toEqual([`s${SESSIONS}`, sorted(parkedAlone)]);
  });

  it('sends a task whose receipt waits for its write to be written, not to its Session', async () => {
    const b = keyed();
    const waiting = b.idsOf(SESSIONS - 1)[2] as string;
    const receipt: WaitingReceipt = {
      sessionId: `s${SESSIONS - 1}`,
      reminder: { id: waiting, messageId: 'm-1' } as DeliveredReminder,
      attemptNow: T,
    };
    b.scheduler.reported({ type: 'task.wake', id: waiting, waits: 'retry', at: b.keys.get(waiting), failure: undefined, receipt });
    b.clock.fire(T + 1000);
    await b.settle();
    expect(b.commits).toEqual([
      { sessionId: `s${SESSIONS - 1}`, outcome: { now: T + 1000, delivered: [], failedIds: [], unrecordableIds: [], retried: [receipt] } },
    ]);
    expect(b.sessionsHanded().flatMap(([, ids]) => ids)).not.toContain(waiting);
    expect(b.sessionsHanded()).toHaveLength(SESSIONS);
  });

  it('stops handing out when stopped, and hands out the rest at once when drained', async () => {
    const stopped = keyed();
    stopped.clock.fire(T + 1000);
    const handedBefore = stopped.handed.length;
    stopped.scheduler.stop();
    expect(stopped.scheduler.handingOut).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped.handed).toHaveLength(handedBefore);

    const drained = keyed();
    drained.clock.fire(T + 1000);
    drained.scheduler.handOutWaiting();
    expect(drained.scheduler.handingOut).toBe(false);
    expect(drained.sessionsHanded()).toEqual(Array.from({ length: SESSIONS }, (_, s) => [`s${s}`, sorted(drained.idsOf(s))]));
  });

  it('gives a Session with more active tasks than a turn reads all of its due tasks in one message', async () => {
    const big = SCAN_ROWS + 1;
    const b = setup(SESSIONS, (s) => (s === 1 ? big : TASKS));
    for (let s = 0; s < SESSIONS; s++) {
      for (const [t, id] of b.idsOf(s).entries()) b.key(id, t < TASKS ? T + s : T + 10_000);
    }
    b.scheduler.rearm();
    b.clock.fire(T + 1000);
    await b.settle();
    expect(b.sessionsHanded()).toEqual(Array.from({ length: SESSIONS }, (_, s) => [`s${s}`, sorted(b.idsOf(s).slice(0, TASKS))]));
  });
});
