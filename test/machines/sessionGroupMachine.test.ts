// The Session group actor: it spawns, feeds and retires its Session actors in the order of its
// routes, drops routes for Sessions it does not hold, and passes their delivery results up; the
// group a Session belongs to is a stable hash of its id.
import { createActor, setup } from 'xstate';
import { type DeliveryOutcome, SESSION_GROUPS, sessionGroupId } from '../../machines/events.ts';
import { type SessionRoute, sessionGroupMachine } from '../../machines/sessionGroupMachine.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { attemptRunner } from '../support/attemptRunner.ts';
import { waitUntil } from '../support/waitUntil.ts';

const T = Date.parse('2030-01-01T08:10:00.000Z');
const row = (sessionId: string, id: string): TaskRow => ({
  sessionId,
  status: 'active',
  record: { id, kind: 'every', title: id, prompt: 'p', scheduledAt: '2030-01-01T08:10:00.000Z', everySeconds: 600 },
});
const spawn = (sessionId: string, ...ids: string[]): SessionRoute => ({
  type: 'send',
  sessionId,
  event: { type: 'tasks.spawn', rows: ids.map((id) => row(sessionId, id)) },
  spawn: true,
});

const flushed = async (): Promise<DeliveryOutcome> => ({ now: 0, delivered: [], failedIds: [], unrecordableIds: [] });

function harness(deliver: () => Promise<DeliveryOutcome> = flushed) {
  const parentEvents: Array<{ type: string; sessionId?: string }> = [];
  const attempts = attemptRunner(deliver);
  const parent = setup({
    actors: { group: sessionGroupMachine },
    types: { events: {} as { type: string; sessionId?: string } },
  }).createMachine({
    invoke: { id: 'group', src: 'group', input: { attempts } },
    on: { '*': { actions: ({ event }) => parentEvents.push(event) } },
  });
  const actor = createActor(parent).start();
  const ref = actor.getSnapshot().children.group!;
  type Snap = { children: Record<string, { getSnapshot(): Snap }> };
  const sessions = () => ref.getSnapshot().children as Record<string, { getSnapshot(): Snap }>;
  return {
    route: (...routes: SessionRoute[]) => ref.send({ type: 'sessions.route', routes }),
    sessionIds: () => Object.keys(sessions()).sort(),
    taskIds: (sessionId: string) =>
      Object.values(sessions()[`session:${sessionId}`]?.getSnapshot().children ?? {})
        .flatMap((group) => Object.keys(group.getSnapshot().children ?? {}))
        .sort(),
    parentEvents,
  };
}

describe('session group', () => {
  it('spawns Session actors with their tasks, and a later route reaches the same actor', () => {
    const h = harness();
    h.route(spawn('s1', 'a'), spawn('s2', 'b'));
    expect(h.sessionIds()).toEqual(['session:s1', 'session:s2']);
    h.route(spawn('s1', 'c'));
    expect(h.sessionIds()).toEqual(['session:s1', 'session:s2']);
    expect(h.taskIds('s1')).toEqual(['a', 'c']);
    expect(h.taskIds('s2')).toEqual(['b']);
  });

  it('drops a route that may not spawn when the Session has no actor', () => {
    const h = harness();
    h.route({ type: 'send', sessionId: 's1', event: { type: 'tasks.due', now: T, ids: ['a'] }, spawn: false });
    expect(h.sessionIds()).toEqual([]);
  });

  it('applies routes in order: a Session retired and created again in one batch gets a fresh actor', () => {
    const h = harness();
    h.route(spawn('s1', 'a'), spawn('s2', 'b'));
    h.route(
      { type: 'retire', sessionId: 's1' },
      spawn('s1', 'c'),
      { type: 'retire', sessionId: 's2' },
      { type: 'retire', sessionId: 's3' },
    );
    expect(h.sessionIds()).toEqual(['session:s1']);
    expect(h.taskIds('s1')).toEqual(['c']);
  });

  it("passes a Session's failed attempt up to its parent", async () => {
    const h = harness(async () => {
      throw new Error('the attempt broke');
    });
    h.route(spawn('s1', 'a'), { type: 'send', sessionId: 's1', event: { type: 'tasks.due', now: T, ids: ['a'] }, spawn: false });
    await waitUntil(() => h.parentEvents.some((e) => e.type === 'tasks.failed'), 'the failure to reach the parent');
    expect(h.parentEvents).toContainEqual(
      expect.objectContaining({ type: 'tasks.failed', causes: [expect.objectContaining({ ids: ['a'] })] }),
    );
  });
});

describe('sessionGroupId', () => {
  it('is stable and names one of the groups', () => {
    expect(sessionGroupId('s1')).toBe(sessionGroupId('s1'));
    expect(sessionGroupId('s1')).toMatch(/^sessions:\d+$/);
    const n = Number(sessionGroupId('a much longer Session id, with spaces and ünïcode')?.split(':')[1]);
    expect(n).toBeGreaterThanOrEqual(0);
    expect(n).toBeLessThan(SESSION_GROUPS);
  });

  it('spreads 20,000 Session ids over every group, none holding more than twice its share', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const id = sessionGroupId(`session-${i}`);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(counts.size).toBe(SESSION_GROUPS);
    expect(Math.max(...counts.values())).toBeLessThanOrEqual((2 * 20_000) / SESSION_GROUPS);
  });
});
