// The supervisor as a root actor: replies are emitted when a call names no `replyTo` and there is
// no parent; a closed supervisor refuses further calls; a close that keeps the tree ends in the
// idle `closed` state, one that does not ends with status `done`.
import { createActor, waitFor } from 'xstate';
import type { ScheduleReplyEvent } from '../../machines/events.ts';
import { memoryStorage } from '../../src/adapters/memoryStorage.ts';
import { scheduleSupervisor } from '../../src/supervisor.ts';
import { createFakeSessions, createManualClock } from '../../src/testing.ts';

const T0 = '2030-01-01T08:00:00.000Z';
const list = { kind: 'tool' as const, sessionId: 's1', name: 'schedule_list', args: {} };

function start(keepTreeOnClose: boolean) {
  const input = { sessions: createFakeSessions(), storage: memoryStorage(), clock: createManualClock(T0), keepTreeOnClose };
  const actor = createActor(scheduleSupervisor, { input });
  const replies: ScheduleReplyEvent[] = [];
  actor.on('schedule.reply', (reply) => replies.push(reply));
  actor.start();
  return { actor, replies };
}

describe('scheduleSupervisor as a root actor', () => {
  it('emits the replies of calls sent before the domain is open, in order', async () => {
    const { actor, replies } = start(false);
    actor.send({ type: 'schedule.call', requestId: 'a', call: list });
    actor.send({ type: 'schedule.call', requestId: 'b', call: { kind: 'remote', method: 'catalog' } });
    await waitFor(actor, () => replies.length === 2);
    expect(replies).toEqual([
      { type: 'schedule.reply', requestId: 'a', op: 'schedule_list', ok: true, value: [] },
      { type: 'schedule.reply', requestId: 'b', op: 'remote.catalog', ok: true, value: [] },
    ]);
    actor.send({ type: 'schedule.close' });
    expect((await waitFor(actor, (s) => s.status !== 'active')).status).toBe('done');
  });

  it('a close that keeps the tree ends in closed, and a later call is refused as closed', async () => {
    const { actor, replies } = start(true);
    actor.send({ type: 'schedule.close' });
    const closed = await waitFor(actor, (s) => s.matches('closed'));
    expect(closed.status).toBe('active');
    actor.send({ type: 'schedule.call', requestId: 'late', call: list });
    expect(replies).toHaveLength(1);
    const reply = replies[0];
    expect(reply).toMatchObject({ requestId: 'late', ok: false });
    expect(reply?.ok === false ? reply.error.code : undefined).toBe('internal_error');
  });
});
