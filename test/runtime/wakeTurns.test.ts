// A wake that finds many Sessions due hands them out in turns (scheduler.ts): earliest due first,
// each Session with all of its due tasks, the first Sessions delivered while the rest wait for
// their turn — and `whenIdle()` and a close still wait for every one of them.
import { sessionActorId } from '../../machines/events.ts';
import type { SessionController } from '../../src/ports.ts';
import { HAND_OUT_TASKS } from '../../src/runtime/scheduler.ts';
import { createFakeSessions, type FakeSessions } from '../../src/testing.ts';
import { closeAll, type Harness, harness } from '../support/harness.ts';

afterEach(closeAll);

const START = '2030-01-01T08:00:00.000Z';
/** Tasks per Session: a turn holds several Sessions, and the burst takes several turns. */
const TASKS = 10;
const SESSIONS = Math.ceil((2.5 * HAND_OUT_TASKS) / TASKS);
/** After every first target of the burst: one wake finds them all due. */
const AFTER_ALL = new Date(Date.parse(START) + (3600 + SESSIONS + 1) * 1000).toISOString();

const sessionId = (i: number): string => `s${i}`;

/** What reached the Sessions, in order: a `tasks.due` at a Session actor, or a reminder appended to a Session. */
type Seen = { readonly kind: 'due' | 'followup'; readonly session: string };

interface Burst {
  readonly h: Harness;
  readonly seen: Seen[];
  /** Called at the first `tasks.due` a Session actor receives (inside the wake). */
  onFirstDue(fn: () => void): void;
}

/** Fake Sessions whose appended reminders are logged into `seen`. */
function loggedSessions(fake: FakeSessions, seen: Seen[]): SessionController {
  return {
    async resolveAgent(session) {
      const agent = await fake.resolveAgent(session);
      return {
        followup(message, meta) {
          seen.push({ kind: 'followup', session });
          return agent.followup(message, meta);
        },
        flush: () => agent.flush(),
      };
    },
  };
}

/**
 * `sessions` Sessions with `TASKS` hourly tasks each, Session i's first due at START + 1 h + i s
 * (`big` tasks more for Session 0), logged from the moment they are created.
 */
async function burst(options: { readonly big?: number } = {}): Promise<Burst> {
  const seen: Seen[] = [];
  let firstDue: (() => void) | undefined;
  let recording = false;
  const sessions = createFakeSessions();
  const actorIds = new Map(Array.from({ length: SESSIONS }, (_, i) => [sessionActorId(sessionId(i)), sessionId(i)]));
  const h = await harness({
    start: START,
    sessions,
    controller: loggedSessions(sessions, seen),
    inspect: (event) => {
      if (!recording || event.type !== '@xstate.event') return;
      const { event: sent, actorRef } = event as typeof event & { readonly event: { type: string }; readonly actorRef: { id: string } };
      const session = actorIds.get(actorRef.id);
      if (sent.type !== 'tasks.due' || session === undefined) return;
      seen.push({ kind: 'due', session });
      const fn = firstDue;
      firstDue = undefined;
      fn?.();
    },
  });
  const creates: Promise<unknown>[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const count = TASKS + (i === 0 ? (options.big ?? 0) : 0);
    for (let t = 0; t < count; t++) {
      creates.push(h.svc.callTool(sessionId(i), 'schedule_create', { prompt: `p${t}`, title: `t${t}`, every_seconds: 3600 + i }));
    }
  }
  await Promise.all(creates);
  await h.svc.whenIdle();
  recording = true;
  return {
    h,
    seen,
    onFirstDue: (fn) => {
      firstDue = fn;
    },
  };
}

/** Each Session's messages: exactly one, carrying every one of its tasks. */
function expectOneBatchEach(b: Burst, big = 0): void {
  for (let i = 0; i < SESSIONS; i++) {
    const messages = b.h.sessions.messages(sessionId(i));
    expect(messages, sessionId(i)).toHaveLength(1);
    expect(messages[0]?.idempotencyKeys, sessionId(i)).toHaveLength(TASKS + (i === 0 ? big : 0));
  }
}

describe('a wake that finds many Sessions due', () => {
  it('hands them out earliest due first, once each, delivering the first before the last is handed out', async () => {
    const b = await burst();
    await b.h.clock.set(AFTER_ALL);
    await b.h.svc.whenIdle();

    const due = b.seen.filter((s) => s.kind === 'due').map((s) => s.session);
    expect(due).toEqual(Array.from({ length: SESSIONS }, (_, i) => sessionId(i)));
    const firstFollowup = b.seen.findIndex((s) => s.kind === 'followup');
    const lastDue = b.seen.findLastIndex((s) => s.kind === 'due');
    expect(b.seen[firstFollowup]?.session).toBe(sessionId(0));
    expect(firstFollowup).toBeLessThan(lastDue);
    expectOneBatchEach(b);
  });

  it('gives a Session with more due tasks than a turn holds all of them in one message', async () => {
    const big = HAND_OUT_TASKS;
    const b = await burst({ big });
    await b.h.clock.set(AFTER_ALL);
    await b.h.svc.whenIdle();
    expectOneBatchEach(b, big);
  });

  it('whenIdle() asked while Sessions wait for their turn resolves once every Session has its reminders', async () => {
    const b = await burst();
    let delivered: number | undefined;
    let idle: Promise<void> | undefined;
    b.onFirstDue(() => {
      idle = b.h.svc.whenIdle().then(() => {
        delivered = Array.from({ length: SESSIONS }, (_, i) => b.h.sessions.messages(sessionId(i)).length).reduce((a, n) => a + n, 0);
      });
    });
    await b.h.clock.set(AFTER_ALL);
    expect(idle).toBeDefined();
    await idle;
    expect(delivered).toBe(SESSIONS);
  });

  it('a close asked while Sessions wait for their turn delivers them before the storage closes', async () => {
    const b = await burst();
    let closing: Promise<void> | undefined;
    b.onFirstDue(() =>
      queueMicrotask(() => {
        closing = b.h.svc.close();
      }),
    );
    await b.h.clock.set(AFTER_ALL);
    expect(closing).toBeDefined();
    await closing;
    expect(b.seen.filter((s) => s.kind === 'due')).toHaveLength(SESSIONS);
    expectOneBatchEach(b);
  });
});
