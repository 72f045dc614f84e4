// Message ids a Session answers with are kept in receipts, which name distinct messages per task.
// A Host that answers with an id the task's history already holds cannot wedge the task: the
// reminder is not recorded, the error is logged, and the task waits for another change.
import type { ScheduleAgent, SessionController } from '../../src/ports.ts';
import { closeAll, create, harness, MINUTE, tick } from '../support/harness.ts';

afterEach(closeAll);

/** A Session that answers every followup with the same message id. */
function sameIdSessions(): SessionController & { readonly appended: number; readonly resolved: number } {
  let appended = 0;
  let resolved = 0;
  return {
    async resolveAgent(): Promise<ScheduleAgent> {
      resolved++;
      return {
        followup: () => {
          appended++;
          return { messageId: 'msg-1' };
        },
        flush: async () => undefined,
      };
    },
    get appended() {
      return appended;
    },
    get resolved() {
      return resolved;
    },
  };
}

describe('message ids a task already holds', () => {
  it('are not recorded twice: the task is parked, the error logged, and nothing retries on a timer', async () => {
    const controller = sameIdSessions();
    const h = await harness({ controller, config: { retry: { initialMs: 1000, maxMs: 4000 } } });
    const v = await create(h, 's1', { every_seconds: 60 });
    await tick(h, MINUTE); // first delivery: recorded under msg-1
    const first = await h.svc.remote.get({ sessionId: 's1', id: v.id });
    expect(first).toMatchObject({ lastDelivery: { messageId: 'msg-1', scheduledAt: '2030-01-01T08:01:00.000Z' } });
    await tick(h, MINUTE); // second: the Session answers msg-1 again
    for (let i = 0; i < 10; i++) await tick(h, 4000);
    expect(controller.appended).toBe(2);
    // Nothing recorded; the failure status says why it waits, with no retry scheduled.
    expect(await h.svc.remote.get({ sessionId: 's1', id: v.id })).toEqual({
      ...first,
      failure: {
        attempts: 1,
        lastAt: '2030-01-01T08:02:00.000Z',
        stage: 'followup',
        message: 'The Session answered with a message id the schedule cannot record.',
      },
    });
    expect(h.logs.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual([
      expect.stringContaining('already names an earlier delivery'),
    ]);
    // Another change gives the parked task another try (it is still active and overdue).
    await create(h, 's1', { after_seconds: 3600 });
    await h.svc.whenIdle();
    expect(controller.appended).toBe(3);
  });
});
