// Two bugs the model-based tests found, kept as regression tests. Both had one cause: the timer's
// queue lost an active task that its Session actor then found not due — its queue entry had been
// replaced by a retry time, or it was taken when handed out. The timer now hands out only tasks
// whose target has passed and puts the others back at their target.
import { createTestModel } from '@xstate/graph';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';
import { runUserPath } from './userDriver.ts';
import { userModel } from './userModel.ts';

afterEach(closeAll);

describe('the timer never loses an active task', () => {
  it('a timing change during an attempt that then fails: the task fires at its new target', async () => {
    // create(after) → clock.due → update(at) → fail(flush) → clock.due, generated from the user model.
    const [path] = createTestModel(userModel).getPathsFromEvents([
      { type: 'create', kind: 'after' },
      { type: 'clock.due' },
      { type: 'update', change: 'at' },
      { type: 'fail', fault: 'flush' },
      { type: 'clock.due' },
    ]);
    expect(path?.state.value).toBe('delivering');
    await runUserPath(path!, 'memory');
  });

  it('retry disabled, the clock set back, an unrelated change: the parked task still fires at its target', async () => {
    const h = await harness({ start: '2030-01-01T08:00:00.000Z', config: { retry: false } });
    const task = await create(h, 's1', { after_seconds: 600 });
    h.sessions.failNext('s1', 'flush');
    await tick(h, 10 * MINUTE); // 08:10 the attempt fails; the task is parked
    await h.clock.set('2030-01-01T08:05:00.000Z'); // the wall clock steps back
    await h.svc.whenIdle();
    await create(h, 's2', { after_seconds: 3600 }); // an unrelated change wakes the parked task: not due
    await tick(h, 2 * 60 * MINUTE); // well past 08:10, and s2's task fires at 09:05
    expect(h.sessions.messages('s2')).toHaveLength(1);
    const [view] = (await h.svc.callTool('s1', 'schedule_list', {})) as Array<{ id: string; state: string }>;
    expect(view).toBeUndefined(); // delivered: a one-shot leaves the list
    expect(h.sessions.messages('s1').map((m) => m.idempotencyKeys)).toEqual([[`${task.id}@2030-01-01T08:10:00.000Z`]]);
  });
});
