// The task machine on its own, through XState's pure transition function: time enters only as
// events carrying `now`, the context is the row, and `inactive` is final. Then the wakes an actor
// of it reports to the timer's owner (`task.wake`).
import { createActor, initialTransition, transition } from 'xstate';
import type { TaskWake, WaitingReceipt } from '../../machines/events.ts';
import { type TaskEvent, taskLogic, taskMachine } from '../../machines/taskMachine.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';

const at = (iso: string) => Date.parse(iso);
const RETRY = { initialMs: 1000, maxMs: 4000 };
/** A failed attempt at `iso` (a flush error, retried on the backoff unless `retry` is false). */
const failed = (iso: string, retry: typeof RETRY | false = RETRY) =>
  ({ type: 'delivery.failed', now: at(iso), failure: { stage: 'flush', message: 'flush failed', retry } }) as const;
const row = (scheduledAt: string, status: TaskRow['status'] = 'active'): TaskRow => ({
  sessionId: 's1',
  status,
  record: { id: 'sch_1', kind: 'every', title: 't', prompt: 'p', scheduledAt, everySeconds: 600 },
});
/** The receipt of the reminder of `row(scheduledAt)` acknowledged at `iso`, waiting for its write. */
const receiptOf = (scheduledAt: string, iso: string): WaitingReceipt => ({
  sessionId: 's1',
  reminder: {
    id: 'sch_1',
    occurrence: at(scheduledAt),
    messageId: 'm-1',
    deliveredAt: at(iso),
    prompt: 'p',
    startedRecord: row(scheduledAt).record,
  },
  attemptNow: at(iso),
});
/** The write of that receipt failed at `iso`: the failure carries it. */
const receiptFailed = (receipt: WaitingReceipt, iso: string, retry: typeof RETRY | false = RETRY) =>
  ({ type: 'delivery.failed', now: at(iso), failure: { stage: 'commit', message: 'disk full', retry, receipt } }) as const;

function start(scheduledAt = '2030-01-01T08:10:00.000Z') {
  return initialTransition(taskMachine, { row: row(scheduledAt) })[0];
}

describe('task machine', () => {
  it('starts scheduled with its row, not a copy of it, as its context', () => {
    const initial = row('2030-01-01T08:10:00.000Z');
    const s = initialTransition(taskMachine, { row: initial })[0];
    expect(s.value).toBe('scheduled');
    expect(s.context).toEqual({ row: initial });
    expect(s.context.row).toBe(initial);
  });

  it('a tick before the target stays scheduled; at the target it becomes overdue', () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:09:59.999Z') });
    expect(s.value).toBe('scheduled');
    [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    expect(s.value).toBe('overdue');
  });

  it('overdue → delivering → scheduled when the committed row has a future target', () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'delivery.start' });
    expect(s.value).toBe('delivering');
    const next = row('2030-01-01T08:20:00.000Z');
    [s] = transition(taskMachine, s, { type: 'delivery.committed', row: next, now: at('2030-01-01T08:10:00.000Z') });
    expect(s.value).toBe('scheduled');
    expect(s.context.row, 'the committed row itself, not a copy').toBe(next);
  });

  it('a committed row that ended makes the task inactive (final)', () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'delivery.start' });
    [s] = transition(taskMachine, s, {
      type: 'delivery.committed',
      row: row('2030-01-01T08:10:00.000Z', 'inactive'),
      now: at('2030-01-01T08:10:00.000Z'),
    });
    expect(s.value).toBe('inactive');
    expect(s.status).toBe('done');
  });

  it('a committed row whose next target already passed goes straight back to overdue', () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'delivery.start' });
    [s] = transition(taskMachine, s, {
      type: 'delivery.committed',
      row: row('2030-01-01T08:20:00.000Z'),
      now: at('2030-01-01T08:25:00.000Z'),
    });
    expect(s.value).toBe('overdue');
  });

  it('a failed delivery waits in retrying until its retry time; after an edit to a future target, in scheduled', () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'delivery.start' });
    const [retrying] = transition(taskMachine, s, failed('2030-01-01T08:10:01.000Z'));
    expect(retrying.value).toBe('retrying');
    expect(retrying.context.failure).toEqual({
      attempts: 1,
      lastAt: '2030-01-01T08:10:01.000Z',
      stage: 'flush',
      message: 'flush failed',
      nextRetryAt: '2030-01-01T08:10:02.000Z',
    });
    const [early] = transition(taskMachine, retrying, { type: 'clock.tick', now: at('2030-01-01T08:10:01.500Z') });
    expect(early.value).toBe('retrying');
    const [again] = transition(taskMachine, retrying, { type: 'clock.tick', now: at('2030-01-01T08:10:02.000Z') });
    expect(again.value).toBe('overdue');
    [s] = transition(taskMachine, s, { type: 'task.updated', row: row('2030-01-02T00:00:00.000Z'), now: at('2030-01-01T08:10:01.000Z') });
    expect(s.value).toBe('delivering');
    [s] = transition(taskMachine, s, failed('2030-01-01T08:10:02.000Z'));
    expect(s.value).toBe('scheduled');
  });

  it('an update moves an overdue task back to scheduled when its new target is in the future', () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'task.updated', row: row('2030-01-01T09:00:00.000Z'), now: at('2030-01-01T08:10:00.000Z') });
    expect(s.value).toBe('scheduled');
    expect(s.context.row.record.scheduledAt).toBe('2030-01-01T09:00:00.000Z');
  });

  it('a clock that moved back below the target returns an overdue task to scheduled', () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T07:00:00.000Z') });
    expect(s.value).toBe('scheduled');
  });

  it('delivery.start is ignored unless the task is overdue', () => {
    const [s] = transition(taskMachine, start(), { type: 'delivery.start' });
    expect(s.value).toBe('scheduled');
  });

  describe('paused', () => {
    const paused = (scheduledAt: string, extra: Partial<TaskRow> = {}): TaskRow => ({
      ...row(scheduledAt),
      pausedAt: '2030-01-01T08:05:00.000Z',
      ...extra,
    });
    const T = at('2030-01-01T08:05:00.000Z');

    it('a committed pause parks the task: ticks past its target leave it paused', () => {
      let [s] = transition(taskMachine, start(), { type: 'task.updated', row: paused('2030-01-01T08:10:00.000Z'), now: T });
      expect(s.value).toBe('paused');
      [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T09:00:00.000Z') });
      expect(s.value).toBe('paused');
      [s] = transition(taskMachine, s, { type: 'delivery.start' });
      expect(s.value).toBe('paused');
    });

    it('a paused row starts out paused, through the machine as through a restore', () => {
      const [s] = initialTransition(taskMachine, { row: paused('2030-01-01T08:10:00.000Z') });
      expect(s.value).toBe('paused');
    });

    it('pausing an overdue task takes it out of the next attempt', () => {
      let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
      [s] = transition(taskMachine, s, {
        type: 'task.updated',
        row: paused('2030-01-01T08:10:00.000Z'),
        now: at('2030-01-01T08:10:01.000Z'),
      });
      expect(s.value).toBe('paused');
    });

    it('a committed resume returns to scheduled (future target) or overdue (passed one-shot), dropping pausedAt', () => {
      let [s] = transition(taskMachine, start(), { type: 'task.updated', row: paused('2030-01-01T08:10:00.000Z'), now: T });
      const [future] = transition(taskMachine, s, {
        type: 'task.updated',
        row: row('2030-01-01T08:20:00.000Z'),
        now: at('2030-01-01T08:11:00.000Z'),
      });
      expect(future.value).toBe('scheduled');
      expect(future.context.row.pausedAt).toBeUndefined();
      [s] = transition(taskMachine, s, { type: 'task.updated', row: row('2030-01-01T08:10:00.000Z'), now: at('2030-01-01T08:11:00.000Z') });
      expect(s.value).toBe('overdue');
    });

    it('run now makes a paused task due; after its delivery it is paused again, target unchanged', () => {
      let [s] = transition(taskMachine, start(), { type: 'task.updated', row: paused('2030-01-01T08:10:00.000Z'), now: T });
      const triggered = paused('2030-01-01T08:10:00.000Z', { triggeredAt: '2030-01-01T08:06:00.000Z' });
      [s] = transition(taskMachine, s, { type: 'task.updated', row: triggered, now: at('2030-01-01T08:06:00.000Z') });
      expect(s.value).toBe('overdue');
      [s] = transition(taskMachine, s, { type: 'delivery.start' });
      [s] = transition(taskMachine, s, {
        type: 'delivery.committed',
        row: paused('2030-01-01T08:10:00.000Z'),
        now: at('2030-01-01T08:06:00.000Z'),
      });
      expect(s.value).toBe('paused');
      expect(s.context.row.triggeredAt).toBeUndefined();
    });

    it('a failed run-now delivery of a paused task waits for its retry while the request waits', () => {
      let [s] = transition(taskMachine, start(), {
        type: 'task.updated',
        row: paused('2030-01-01T08:10:00.000Z', { triggeredAt: '2030-01-01T08:06:00.000Z' }),
        now: at('2030-01-01T08:06:00.000Z'),
      });
      [s] = transition(taskMachine, s, { type: 'delivery.start' });
      [s] = transition(taskMachine, s, failed('2030-01-01T08:06:01.000Z'));
      expect(s.value).toBe('retrying');
    });

    it('a pause committed while a delivery is in flight applies when it is settled', () => {
      let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
      [s] = transition(taskMachine, s, { type: 'delivery.start' });
      [s] = transition(taskMachine, s, {
        type: 'task.updated',
        row: paused('2030-01-01T08:10:00.000Z'),
        now: at('2030-01-01T08:10:00.500Z'),
      });
      expect(s.value).toBe('delivering');
      const [afterFailure] = transition(taskMachine, s, failed('2030-01-01T08:10:01.000Z'));
      expect(afterFailure.value).toBe('paused');
      const [committed] = transition(taskMachine, s, {
        type: 'delivery.committed',
        row: paused('2030-01-01T08:20:00.000Z'),
        now: at('2030-01-01T08:10:00.000Z'),
      });
      expect(committed.value).toBe('paused');
    });
  });
});

describe('retrying and parked tasks', () => {
  const failedOnce = () => {
    let [s] = transition(taskMachine, start(), { type: 'clock.tick', now: at('2030-01-01T08:10:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'delivery.start' });
    return s;
  };

  it('the backoff doubles up to its cap, counting attempts until a committed delivery clears them', () => {
    let s = failedOnce();
    const retries: Array<string | undefined> = [];
    let now = at('2030-01-01T08:10:00.000Z');
    for (let i = 0; i < 4; i++) {
      [s] = transition(taskMachine, s, { ...failed('2030-01-01T08:10:00.000Z'), now });
      retries.push(s.context.failure?.nextRetryAt);
      now = Date.parse(s.context.failure?.nextRetryAt ?? '');
      [s] = transition(taskMachine, s, { type: 'clock.tick', now });
      [s] = transition(taskMachine, s, { type: 'delivery.start' });
    }
    expect(retries).toEqual([
      '2030-01-01T08:10:01.000Z',
      '2030-01-01T08:10:03.000Z',
      '2030-01-01T08:10:07.000Z',
      '2030-01-01T08:10:11.000Z',
    ]);
    expect(s.context.failure?.attempts).toBe(4);
    [s] = transition(taskMachine, s, { type: 'delivery.committed', row: row('2030-01-01T08:20:00.000Z'), now });
    expect(s.value).toBe('scheduled');
    expect(s.context.failure).toBeUndefined();
    expect(s.context.retries).toBeUndefined();
  });

  it('an edit forgets the backoff but keeps the attempts; retry now makes the task overdue at once', () => {
    let [s] = transition(taskMachine, failedOnce(), failed('2030-01-01T08:10:01.000Z'));
    const [edited] = transition(taskMachine, s, {
      type: 'task.updated',
      row: row('2030-01-01T08:10:00.000Z'),
      now: at('2030-01-01T08:10:01.500Z'),
    });
    expect(edited.value).toBe('overdue');
    expect(edited.context.failure).toMatchObject({ attempts: 1 });
    expect(edited.context.failure?.nextRetryAt).toBeUndefined();
    [s] = transition(taskMachine, s, { type: 'delivery.retry', now: at('2030-01-01T08:10:01.200Z') });
    expect(s.value).toBe('overdue');
    expect(s.context.failure?.nextRetryAt).toBeUndefined();
  });

  it('a row restored with a failure status starts with it and counts its attempts on; the backoff starts over', () => {
    const stored = {
      attempts: 5,
      lastAt: '2030-01-01T08:05:00.000Z',
      stage: 'resolve',
      message: 'offline',
      nextRetryAt: '2030-01-01T08:10:00.000Z',
    } as const;
    let [s] = initialTransition(taskMachine, { row: { ...row('2030-01-01T08:00:00.000Z'), failure: stored } });
    expect(s.value).toBe('scheduled');
    expect(s.context.failure).toEqual(stored);
    [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T08:06:00.000Z') });
    [s] = transition(taskMachine, s, { type: 'delivery.start' });
    [s] = transition(taskMachine, s, failed('2030-01-01T08:06:00.000Z'));
    expect(s.value).toBe('retrying');
    expect(s.context.failure).toMatchObject({ attempts: 6, stage: 'flush', nextRetryAt: '2030-01-01T08:06:01.000Z' });
  });

  it('an edit whose written row carries an older stored failure keeps the failure the actor holds', () => {
    let [s] = transition(taskMachine, failedOnce(), failed('2030-01-01T08:10:01.000Z'));
    [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T08:10:02.000Z') });
    [s] = transition(taskMachine, s, { type: 'delivery.start' });
    [s] = transition(taskMachine, s, failed('2030-01-01T08:10:02.000Z'));
    const older = { attempts: 1, lastAt: '2030-01-01T08:10:01.000Z', stage: 'flush', message: 'flush failed' } as const;
    const [edited] = transition(taskMachine, s, {
      type: 'task.updated',
      row: { ...row('2030-01-01T08:10:00.000Z'), failure: older },
      now: at('2030-01-01T08:10:02.500Z'),
    });
    expect(edited.context.failure).toMatchObject({ attempts: 2, lastAt: '2030-01-01T08:10:02.000Z' });
    expect(edited.context.failure?.nextRetryAt).toBeUndefined();
  });

  it('with retry off a failed task is parked: no retry time, and a tick (an unrelated wake) makes it overdue', () => {
    let [s] = transition(taskMachine, failedOnce(), failed('2030-01-01T08:10:01.000Z', false));
    expect(s.value).toBe('parked');
    expect(s.context.failure).toEqual({ attempts: 1, lastAt: '2030-01-01T08:10:01.000Z', stage: 'flush', message: 'flush failed' });
    [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T08:30:00.000Z') });
    expect(s.value).toBe('overdue');
  });

  it('a receipt whose write failed waits for the retry even when an edit moved its target ahead; its retried write commits it', () => {
    let s = failedOnce();
    const receipt = receiptOf('2030-01-01T08:10:00.000Z', '2030-01-01T08:10:00.200Z');
    [s] = transition(taskMachine, s, { type: 'task.updated', row: row('2030-01-02T00:00:00.000Z'), now: at('2030-01-01T08:10:00.500Z') });
    [s] = transition(taskMachine, s, receiptFailed(receipt, '2030-01-01T08:10:01.000Z'));
    expect(s.value).toBe('retrying');
    expect(s.context.failure?.stage).toBe('commit');
    expect(s.context.receipt).toEqual(receipt);
    [s] = transition(taskMachine, s, {
      type: 'delivery.committed',
      row: row('2030-01-02T00:00:00.000Z'),
      now: at('2030-01-01T08:10:02.000Z'),
    });
    expect(s.value).toBe('scheduled');
    expect(s.context.failure).toBeUndefined();
    expect(s.context.receipt).toBeUndefined();
  });

  it('the context is the one owner of a waiting receipt: an edit, a failed retried write and a retry now keep it, and it is never delivered again meanwhile', () => {
    const receipt = receiptOf('2030-01-01T08:10:00.000Z', '2030-01-01T08:10:00.200Z');
    const renamed: TaskRow = {
      ...row('2030-01-01T08:10:00.000Z'),
      record: { ...row('2030-01-01T08:10:00.000Z').record, title: 'renamed' },
    };
    let [s] = transition(taskMachine, failedOnce(), receiptFailed(receipt, '2030-01-01T08:10:01.000Z'));
    [s] = transition(taskMachine, s, { type: 'task.updated', row: renamed, now: at('2030-01-01T08:10:01.500Z') });
    expect(s.value).toBe('retrying');
    expect(s.context).toMatchObject({ row: renamed, receipt });
    // The retried write fails again: a failure without the receipt leaves the one held.
    const stillDown = { stage: 'commit', message: 'still down', retry: RETRY } as const;
    [s] = transition(taskMachine, s, { type: 'delivery.failed', now: at('2030-01-01T08:10:02.000Z'), failure: stillDown });
    expect(s.value).toBe('retrying');
    expect(s.context.receipt).toEqual(receipt);
    // Its retry time comes, and it is due: the write is retried, not the delivery.
    [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T08:30:00.000Z') });
    expect(s.value).toBe('retrying');
    [s] = transition(taskMachine, s, { type: 'delivery.retry', now: at('2030-01-01T08:30:00.000Z') });
    expect(s.value).toBe('retrying');
    expect(s.context.receipt).toEqual(receipt);
    // Parked (retry off): a wake that finds it due leaves it parked.
    [s] = transition(taskMachine, s, receiptFailed(receipt, '2030-01-01T08:30:01.000Z', false));
    expect(s.value).toBe('parked');
    [s] = transition(taskMachine, s, { type: 'clock.tick', now: at('2030-01-01T08:40:00.000Z') });
    expect(s.value).toBe('parked');
    [s] = transition(taskMachine, s, {
      type: 'delivery.committed',
      row: row('2030-01-01T08:20:00.000Z'),
      now: at('2030-01-01T08:40:00.000Z'),
    });
    expect(s.value).toBe('overdue');
    expect(s.context.receipt).toBeUndefined();
  });
});

describe('the wake a task actor reports', () => {
  /** An actor of the logic every task runs, and the wakes it reported during each of `events`. */
  function wakesOf(first: TaskRow, events: readonly TaskEvent[]): { state: string; wakes: TaskWake[] } {
    const actor = createActor(taskLogic, { input: { row: first } });
    const wakes: TaskWake[] = [];
    actor.on('task.wake', (wake) => wakes.push(wake));
    actor.start();
    for (const event of events) actor.send(event);
    return { state: String(actor.getSnapshot().value), wakes };
  }
  const tick = (iso: string) => ({ type: 'clock.tick', now: at(iso) }) as const;
  const START = { type: 'delivery.start' } as const;
  const due = '2030-01-01T08:10:00.000Z';

  it('a failed delivery reports its next retry and failure status; the retry tick makes it overdue without one', () => {
    const { state, wakes } = wakesOf(row(due), [tick(due), START, failed(due), tick('2030-01-01T08:10:01.000Z')]);
    expect(state).toBe('overdue');
    expect(wakes).toEqual([
      {
        type: 'task.wake',
        id: 'sch_1',
        waits: 'retry',
        at: at('2030-01-01T08:10:01.000Z'),
        failure: expect.objectContaining({ attempts: 1, stage: 'flush', nextRetryAt: '2030-01-01T08:10:01.000Z' }),
      },
    ]);
  });

  it('a task that never failed reports nothing through its delivery', () => {
    const { state, wakes } = wakesOf(row(due), [
      tick(due),
      START,
      { type: 'delivery.committed', row: row('2030-01-01T08:20:00.000Z'), now: at(due) },
    ]);
    expect(state).toBe('scheduled');
    expect(wakes).toEqual([]);
  });

  it('parked with retry off; a tick that does not find it due (the clock stepped back) leaves it parked, reported again', () => {
    const { state, wakes } = wakesOf(row(due), [tick(due), START, failed(due, false), tick('2030-01-01T08:09:00.000Z')]);
    expect(state).toBe('parked');
    expect(wakes.map(({ waits, at }) => ({ waits, at }))).toEqual([
      { waits: 'parked', at: undefined },
      { waits: 'parked', at: undefined },
    ]);
  });

  it('a committed delivery of a failing task reports its next due instant and clears the failure status', () => {
    const { state, wakes } = wakesOf(row(due), [
      tick(due),
      START,
      failed(due),
      tick('2030-01-01T08:10:01.000Z'),
      START,
      { type: 'delivery.committed', row: row('2030-01-01T08:20:00.000Z'), now: at('2030-01-01T08:10:01.000Z') },
    ]);
    expect(state).toBe('scheduled');
    expect(wakes.at(-1)).toEqual({ type: 'task.wake', id: 'sch_1', waits: 'due', at: at('2030-01-01T08:20:00.000Z'), failure: undefined });
  });

  it('an edit of a retrying task reports its new target and the failure status without a next retry', () => {
    const { state, wakes } = wakesOf(row(due), [
      tick(due),
      START,
      failed(due),
      { type: 'task.updated', row: row('2030-01-01T09:00:00.000Z'), now: at(due) },
    ]);
    expect(state).toBe('scheduled');
    const last = wakes.at(-1);
    expect(last).toMatchObject({ waits: 'due', at: at('2030-01-01T09:00:00.000Z'), failure: { attempts: 1, stage: 'flush' } });
    expect(last?.failure?.nextRetryAt).toBeUndefined();
  });

  it("a receipt waiting for its write reports the write's retry, even once its task is paused", () => {
    const paused: TaskRow = { ...row(due), pausedAt: due };
    const receipt = receiptOf(due, due);
    const { state, wakes } = wakesOf(row(due), [
      tick(due),
      START,
      { type: 'task.updated', row: paused, now: at(due) },
      receiptFailed(receipt, due),
    ]);
    expect(state).toBe('retrying');
    expect(wakes).toEqual([expect.objectContaining({ waits: 'retry', at: at('2030-01-01T08:10:01.000Z'), receipt })]);
  });

  it('every wake carries the waiting receipt until its write is committed, the wake after it none', () => {
    const receipt = receiptOf(due, due);
    const { state, wakes } = wakesOf(row(due), [
      tick(due),
      START,
      receiptFailed(receipt, due),
      { type: 'delivery.retry', now: at('2030-01-01T08:10:00.500Z') },
      receiptFailed(receipt, '2030-01-01T08:10:01.000Z', false),
      { type: 'delivery.committed', row: row('2030-01-01T08:20:00.000Z'), now: at('2030-01-01T08:10:02.000Z') },
    ]);
    expect(state).toBe('scheduled');
    expect(wakes.map(({ waits, receipt: r }) => ({ waits, receipt: r }))).toEqual([
      { waits: 'retry', receipt },
      { waits: 'retry', receipt },
      { waits: 'parked', receipt },
      { waits: 'due', receipt: undefined },
    ]);
  });
});
