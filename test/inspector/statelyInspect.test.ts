// The service inspected live through the Stately Inspector's WebSocket inspector
// (`createWebSocketInspector` from @statelyai/inspect) on a real service — manual clock, fake
// Sessions, memory storage: a local WebSocket server receives the registrations of the supervisor
// and of a one-shot's task actor, and the task's snapshots from scheduled through overdue and
// delivering to its final `inactive` state, each message one JSON inspection event.
import { createWebSocketInspector } from '@statelyai/inspect';
import type { InspectionEvent } from 'xstate';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { createScheduleService } from '../../src/service.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { type StatelyServer, startStatelyServer, stateTrail } from '../support/statelyServer.ts';

const T0 = '2030-01-01T08:00:00.000Z';

let server: StatelyServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('the Stately WebSocket inspector on the service', () => {
  it('sends the supervisor and a task actor, and the task from scheduled to inactive', async () => {
    const relay = await startStatelyServer();
    server = relay;
    const stately = createWebSocketInspector({ url: relay.url });
    // Connected before the service starts, so no event waits in the inspector's bounded buffer.
    await relay.waitFor('the inspector to connect', () => relay.connections().open === 1);
    const clock = createManualClock(T0);
    const sessions = createFakeSessions();
    const svc = await createScheduleService({
      inspect: (event) => stately.inspect.next?.(event as InspectionEvent),
      sessions,
      clock,
      storage: memoryStorage(),
    });
    try {
      clock.attach(svc);
      const view = await svc.callTool('s1', 'schedule_create', { title: 'Stretch', prompt: 'Stand up.', after_seconds: 60 });
      expect(view).toMatchObject({ id: 'sch_1', state: 'scheduled', scheduledAt: '2030-01-01T08:01:00.000Z' });
      await svc.whenIdle();
      await relay.waitFor('the task actor', () => relay.actor('sch_1') !== undefined);
      await clock.advance(60_000);
      await svc.whenIdle();
      expect(sessions.messages('s1')).toHaveLength(1);

      const task = relay.actor('sch_1');
      await relay.waitFor('the final snapshot of the task', () =>
        relay.snapshots(task?.sessionId ?? '').some((e) => (e.snapshot as { status?: string }).status === 'done'),
      );
      const supervisor = relay.actor('supervisor');
      expect(supervisor).toMatchObject({ type: '@xstate.actor', snapshot: { status: 'active' } });
      expect(supervisor?.parentId).toBeUndefined();
      expect(JSON.parse(supervisor?.definition ?? '{}')).toMatchObject({ id: 'supervisor' });
      const root = supervisor?.sessionId;
      expect(root).toEqual(expect.any(String));
      // The task actor: registered under its task group, with the task machine's definition and its row.
      expect(task).toMatchObject({
        rootId: root,
        snapshot: {
          status: 'active',
          value: 'scheduled',
          context: { row: { sessionId: 's1', record: { id: 'sch_1', title: 'Stretch' } } },
        },
      });
      expect(JSON.parse(task?.definition ?? '{}')).toMatchObject({ id: 'task', initial: 'scheduled' });
      const group = relay.events.find((e) => e.type === '@xstate.actor' && e.sessionId === task?.parentId);
      expect(group).toMatchObject({ name: 'tasks:0' });

      const trail = relay.snapshots(task?.sessionId ?? '');
      expect(stateTrail(trail)).toEqual({ states: ['scheduled', 'overdue', 'delivering', 'inactive'], status: 'done' });
      expect(trail.map((e) => e.event.type)).toEqual(['xstate.init', 'clock.tick', 'delivery.start', 'delivery.committed']);
      expect(trail.every((e) => e.rootId === root)).toBe(true);
      // The events sent to the task, as the inspector's sequence view shows them.
      const received = relay.events.flatMap((e) => (e.type === '@xstate.event' && e.sessionId === task?.sessionId ? [e.event.type] : []));
      expect(received).toEqual(['xstate.init', 'clock.tick', 'delivery.start', 'delivery.committed']);
      expect(relay.malformed).toEqual([]);
    } finally {
      await svc.close();
    }
    // The service's last events reach the server before the inspector disconnects.
    await relay.waitFor('the supervisor closed', () =>
      relay.snapshots(relay.actor('supervisor')?.sessionId ?? '').some((e) => (e.snapshot as { value?: unknown }).value === 'closed'),
    );
    stately.stop();
    await relay.waitFor('the inspector to disconnect', () => relay.connections().open === 0);
  });
});
