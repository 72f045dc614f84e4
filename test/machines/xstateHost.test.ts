// The example XState Host (examples/xstateHost.ts) embeds the supervisor as a child actor: it
// offers the tools, gets answers to its model's tool calls, receives a delivery through its
// Sessions and closes; its own `inspect` sees the supervisor and the task actors.
import type { InspectionEvent } from 'xstate';
import { createActor, waitFor } from 'xstate';
import { hostMachine } from '../../examples/xstateHost.ts';
import { isRefusal } from '../../machines/scheduleReply.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';
import { waitUntil } from '../support/waitUntil.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const MINUTE = 60_000;

const idOf = (ref: unknown): string => (typeof ref === 'object' && ref !== null && 'id' in ref && typeof ref.id === 'string' ? ref.id : '');

function startHost(inspect?: (event: InspectionEvent) => void) {
  const clock = createManualClock(T0);
  const sessions = createFakeSessions();
  const input = { sessions, storage: memoryStorage(), clock };
  const host = createActor(hostMachine, inspect === undefined ? { input } : { input, inspect }).start();
  const createCall = {
    type: 'model.toolCall' as const,
    callId: 'call-1',
    sessionId: 's1',
    name: 'schedule_create',
    args: { title: 'Stretch', prompt: 'Stretch now', after_seconds: 60 },
  };
  return { clock, sessions, host, createCall };
}

describe('a Host built on XState', () => {
  it('offers the tools, answers a tool call, receives the delivery and closes', async () => {
    const { clock, sessions, host, createCall } = startHost();
    expect(host.getSnapshot().context.tools.map((t) => t.name)).toContain('schedule_create');
    host.send(createCall);
    await waitFor(host, (snapshot) => snapshot.context.answers['call-1'] !== undefined);
    const answer = host.getSnapshot().context.answers['call-1'];
    expect(answer).toMatchObject({ type: 'schedule.reply', requestId: 'call-1', op: 'schedule_create', ok: true });
    const id = answer?.op === 'schedule_create' && answer.ok && !isRefusal(answer.value) ? answer.value.id : '';
    expect(host.getSnapshot().context.views[id]).toMatchObject({ id, title: 'Stretch', state: 'scheduled' });
    expect(host.getSnapshot().context.changes).toEqual([{ type: 'schedule.changed', sessionId: 's1', ids: [id] }]);

    await clock.advance(MINUTE);
    await waitUntil(() => sessions.messages('s1').length === 1, "the reminder's message in s1");
    expect(sessions.messages('s1')[0]?.text).toContain('Stretch now');

    host.send({ type: 'shutdown' });
    await waitFor(host, (snapshot) => snapshot.status === 'done');
    expect(host.getSnapshot().value).toBe('stopped');
  });

  it("pauses from the Host's UI: the view comes back typed, and a pause of an unknown id is refused with its code", async () => {
    const { host, createCall } = startHost();
    host.send(createCall);
    await waitFor(host, (snapshot) => snapshot.context.answers['call-1'] !== undefined);
    const created = host.getSnapshot().context.answers['call-1'];
    const id = created?.op === 'schedule_create' && created.ok && !isRefusal(created.value) ? created.value.id : '';
    host.send({ type: 'ui.pause', requestId: 'ui-1', sessionId: 's1', id });
    host.send({ type: 'ui.pause', requestId: 'ui-2', sessionId: 's1', id: 'sch_missing' });
    await waitFor(host, (snapshot) => snapshot.context.answers['ui-2'] !== undefined);
    const { views, refusals, answers } = host.getSnapshot().context;
    expect(views[id]?.state).toBe('paused');
    expect(answers['ui-1']).toMatchObject({ op: 'remote.pause', ok: true });
    expect(refusals['ui-2']).toEqual({ code: 'schedule_not_found', message: expect.stringContaining('sch_missing') });
    expect(refusals['ui-1']).toBeUndefined();
    host.send({ type: 'shutdown' });
    await waitFor(host, (snapshot) => snapshot.status === 'done');
  });

  it('a domain that cannot be opened reaches the invoke’s onError', async () => {
    const host = createActor(hostMachine, {
      input: { sessions: createFakeSessions(), storage: memoryStorage({ version: 99, tasks: [] }), clock: createManualClock(T0) },
    }).start();
    await waitFor(host, (snapshot) => snapshot.status === 'done');
    expect(host.getSnapshot().value).toBe('failed');
  });

  it("the Host's own inspect sees the supervisor and a task actor going scheduled → overdue → delivering → inactive", async () => {
    const actors = new Map<string, string>();
    const states = new Map<string, unknown[]>();
    const inspect = (event: InspectionEvent): void => {
      const ref = event.actorRef;
      const id = idOf(ref);
      if (event.type === '@xstate.actor') actors.set(id, ref.sessionId);
      if (event.type === '@xstate.snapshot') {
        const snapshot = event.snapshot as { value?: unknown };
        const seen = states.get(id) ?? [];
        if (snapshot.value !== undefined && seen.at(-1) !== snapshot.value) seen.push(snapshot.value);
        states.set(id, seen);
      }
    };
    const { clock, sessions, host, createCall } = startHost(inspect);
    host.send(createCall);
    await waitFor(host, (snapshot) => snapshot.context.answers['call-1'] !== undefined);
    const answer = host.getSnapshot().context.answers['call-1'];
    const id = answer?.op === 'schedule_create' && answer.ok && !isRefusal(answer.value) ? answer.value.id : '';
    expect(actors.has('schedule')).toBe(true); // the supervisor, under the id the Host invoked it with
    expect(actors.has(id)).toBe(true);
    await clock.advance(MINUTE);
    await waitUntil(() => sessions.messages('s1').length === 1 && states.get(id)?.at(-1) === 'inactive', 'the delivered task inactive');
    expect(states.get(id)).toEqual(['scheduled', 'overdue', 'delivering', 'inactive']);
    expect(states.get('schedule')).toContainEqual({ running: 'busy' });
    host.send({ type: 'shutdown' });
    await waitFor(host, (snapshot) => snapshot.status === 'done');
  });
});
