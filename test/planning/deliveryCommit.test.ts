// The delivery-commit plan: what an attempt's outcome writes, what its task actors are told, and
// what a failed write keeps — for a fresh attempt and for the retried write of waiting receipts.
import type { DeliveryOutcome, FailureCause } from '../../machines/events.ts';
import { DEFAULT_RETRY } from '../../src/domain/tasks/retry.ts';
import type { ScheduleRecord, TaskRow } from '../../src/domain/tasks/types.ts';
import { mergeDeliveryPlans, planDeliveryCommit, receiptFailures, taskFailures } from '../../src/planning/deliveryCommit.ts';
import { retriedWrites } from '../../src/planning/pendingReceipts.ts';
import {
  active,
  at,
  batchOf,
  type CommitSituation,
  commitSlot,
  type Expected,
  ended,
  every,
  expectMembers,
  oneShot,
  outcome,
  putIds,
  putOf,
  reminder,
  resolvedValue,
  T0,
  writeOf,
} from './fixtures.ts';

const ONE_SHOT = oneShot('sch_1', '2030-01-01T08:10:00.000Z');
const MINUTELY = every('sch_2', '2030-01-01T08:10:00.000Z');
const DUE = '2030-01-01T08:10:00.000Z';
const NOW = '2030-01-01T08:10:00.500Z';

describe('planDeliveryCommit of a fresh attempt', () => {
  it.each<[string, readonly TaskRow[], ScheduleRecord, Expected, boolean]>([
    [
      'a one-shot ends; its Session, with nothing else active, retires',
      [active(ONE_SHOT)],
      ONE_SHOT,
      { status: 'inactive', record: ONE_SHOT },
      true,
    ],
    [
      'a one-shot ends; the Session keeps its other task',
      [active(ONE_SHOT), active(MINUTELY)],
      ONE_SHOT,
      { status: 'inactive', record: ONE_SHOT },
      false,
    ],
    [
      'a recurring task advances past the attempt',
      [active(MINUTELY)],
      MINUTELY,
      { status: 'active', record: every('sch_2', '2030-01-01T08:11:00.000Z') },
      false,
    ],
    [
      'a paused recurring task keeps its pause as it advances',
      [active(MINUTELY, { pausedAt: T0, pauseNote: 'away' })],
      MINUTELY,
      { status: 'active', pausedAt: T0, pauseNote: 'away', record: every('sch_2', '2030-01-01T08:11:00.000Z') },
      false,
    ],
    [
      'a one-shot ends even when paused meanwhile (its pause goes with it)',
      [active(ONE_SHOT, { pausedAt: '2030-01-01T08:10:00.200Z' })],
      ONE_SHOT,
      { status: 'inactive', pausedAt: undefined },
      true,
    ],
  ])('%s', (_title, rows, delivered, written, retire) => {
    const r = reminder(delivered, 'm-1', NOW);
    const o = outcome(NOW, [r]);
    const plan = writeOf(planDeliveryCommit(commitSlot({ rows, now: NOW }), 's1', o));
    const row = putOf(plan, delivered.id);
    expectMembers(row, written);
    const receipt = { scheduledAt: DUE, deliveredAt: NOW, messageId: 'm-1', prompt: 'p' };
    expect(row.lastDelivery).toEqual(receipt);
    expect(row.deliveryHistory?.records).toEqual([receipt]);
    expect(plan.batch).toEqual({ puts: [row], deletes: [] });
    expect(plan.effects).toEqual([{ type: 'delivery.settle', sessionId: 's1', committed: [row], failures: [], now: at(NOW), retire }]);
    expect(plan.changes).toEqual([{ sessionId: 's1', ids: [delivered.id] }]);
    expect(plan.commits).toEqual([{ sessionId: 's1', reminder: r, attemptNow: at(NOW) }]);
    expect(plan.failures).toEqual([]);
  });

  it('a clock that jumped: the latest missed occurrence is delivered, the receipt counts the ones coalesced', () => {
    const late = '2030-01-01T08:15:30.000Z';
    const r = { ...reminder(MINUTELY, 'm-1', late), occurrence: at('2030-01-01T08:15:00.000Z') };
    const plan = planDeliveryCommit(commitSlot({ rows: [active(MINUTELY)], now: late }), 's1', outcome(late, [r]));
    const row = putOf(plan, 'sch_2');
    expect(row.record.scheduledAt).toBe('2030-01-01T08:16:00.000Z');
    expect(row.lastDelivery).toMatchObject({ scheduledAt: '2030-01-01T08:15:00.000Z', missed: 5, firstMissed: DUE });
  });

  it('a timing edit made while the message was in flight, still ahead, wins: the receipt is kept, the new target too', () => {
    const edited = every('sch_2', '2030-01-01T09:00:00.000Z');
    const plan = planDeliveryCommit(commitSlot({ rows: [active(edited)], now: NOW }), 's1', outcome(NOW, [reminder(MINUTELY, 'm-1', NOW)]));
    const row = putOf(plan, 'sch_2');
    expect(row.record.scheduledAt).toBe('2030-01-01T09:00:00.000Z');
    expect(row.lastDelivery?.scheduledAt).toBe(DUE);
  });

  it.each<[string, readonly TaskRow[], boolean]>([
    ['deleted while in flight (its Session has nothing left)', [], true],
    ['deleted while in flight (its Session has another task)', [active(MINUTELY)], false],
    ['ended while in flight', [ended(ONE_SHOT)], true],
    ['that belongs to another Session', [active(ONE_SHOT, { sessionId: 's2' })], true],
  ])('a task %s records nothing', (_title, rows, retire) => {
    const plan = planDeliveryCommit(commitSlot({ rows, now: NOW }), 's1', outcome(NOW, [reminder(ONE_SHOT, 'm-1', NOW)]));
    expect(plan.kind).toBe('read');
    expect(plan.effects).toEqual([{ type: 'delivery.settle', sessionId: 's1', committed: [], failures: [], now: at(NOW), retire }]);
  });

  it.each<[string, Partial<DeliveryOutcome>, readonly FailureCause[]]>([
    [
      'a failed task without a cause fails unexplained at resolve',
      { failedIds: ['sch_2'] },
      [{ ids: ['sch_2'], stage: 'resolve', message: 'The delivery attempt failed without a cause.' }],
    ],
    [
      'a failed task keeps the cause the attempt gave',
      { failedIds: ['sch_2'], causes: [{ ids: ['sch_2'], stage: 'flush', message: 'socket closed' }] },
      [{ ids: ['sch_2'], stage: 'flush', message: 'socket closed' }],
    ],
    [
      'a task appended under a message id that cannot be stored is parked',
      { unrecordableIds: ['sch_2'] },
      [{ ids: ['sch_2'], stage: 'followup', message: 'The Session answered with a message id the schedule cannot record.', park: true }],
    ],
  ])('%s', (_title, extra, failures) => {
    const plan = planDeliveryCommit(commitSlot({ rows: [active(ONE_SHOT), active(MINUTELY)], now: NOW }), 's1', {
      ...outcome(NOW, [reminder(ONE_SHOT, 'm-1', NOW)]),
      ...extra,
    });
    expect(putIds(plan)).toEqual(['sch_1']);
    expect(plan.failures).toEqual(failures);
    expect(plan.effects).toEqual([
      {
        type: 'delivery.settle',
        sessionId: 's1',
        committed: batchOf(plan)?.puts,
        failures: taskFailures(failures, DEFAULT_RETRY),
        now: at(NOW),
        retire: false,
      },
    ]);
  });

  it('a Session answering with a message id the task already recorded: nothing written, the task parked and the error logged', () => {
    const row = active(MINUTELY, { lastDelivery: { scheduledAt: T0, deliveredAt: T0, messageId: 'm-1' } });
    const plan = planDeliveryCommit(commitSlot({ rows: [row], now: NOW }), 's1', outcome(NOW, [reminder(MINUTELY, 'm-1', NOW)]));
    expect(plan.kind).toBe('read');
    expect(plan.failures).toEqual([expect.objectContaining({ ids: ['sch_2'], stage: 'followup', park: true })]);
    expect(plan.errors).toEqual([
      { message: expect.stringContaining('message id m-1'), data: { sessionId: 's1', id: 'sch_2', messageId: 'm-1' } },
    ]);
    const [settle] = plan.effects;
    expect(settle).toMatchObject({ type: 'delivery.settle', failures: [{ ids: ['sch_2'], failure: { stage: 'followup', retry: false } }] });
  });

  it.each([
    ['the retry policy', DEFAULT_RETRY, DEFAULT_RETRY],
    ['no retries (every failure parks)', false, false],
  ] as const)('failures go to their actors with %s', (_title, retry, expected) => {
    const plan = planDeliveryCommit(
      commitSlot({ rows: [active(MINUTELY)], now: NOW, retry }),
      's1',
      outcome(NOW, [], { failedIds: ['sch_2'] }),
    );
    expect(plan.effects[0]).toMatchObject({ failures: [{ ids: ['sch_2'], failure: { stage: 'resolve', retry: expected } }] });
  });

  it('a write that fails: each acknowledged receipt goes back to its actor in its commit failure, the other failures go along, the Session stays', () => {
    const situation: CommitSituation = { rows: [active(ONE_SHOT), active(MINUTELY)], now: NOW };
    const r = reminder(ONE_SHOT, 'm-1', NOW);
    const plan = planDeliveryCommit(commitSlot(situation), 's1', outcome(NOW, [r], { failedIds: ['sch_2'] }));
    const error = new Error('disk full');
    const failed = writeOf(plan).onWriteFailure(error);
    const written = { ids: ['sch_1'], stage: 'commit', message: 'disk full', error };
    const unexplained = { ids: ['sch_2'], stage: 'resolve', message: 'The delivery attempt failed without a cause.' };
    expect(failed.failures).toEqual([written, unexplained]);
    const receipt = { sessionId: 's1', reminder: r, attemptNow: at(NOW) };
    expect(failed.commits).toEqual([receipt]);
    expect(failed.effects).toEqual([
      {
        type: 'delivery.settle',
        sessionId: 's1',
        committed: [],
        failures: [
          { ids: ['sch_1'], failure: { stage: 'commit', message: 'disk full', retry: DEFAULT_RETRY, receipt } },
          ...taskFailures([unexplained] as FailureCause[], DEFAULT_RETRY),
        ],
        now: at(NOW),
        retire: false,
      },
    ]);
  });
});

describe('planDeliveryCommit retrying the write of waiting receipts', () => {
  const attemptNow = NOW;
  const slotNow = '2030-01-01T08:10:05.000Z';
  const pendingOf = (record: ScheduleRecord, messageId = 'm-1') => ({
    sessionId: 's1',
    reminder: reminder(record, messageId, NOW),
    attemptNow: at(attemptNow),
  });

  /** The retried write of these waiting receipts, as the timer builds it from their tasks' wakes. */
  function retried(rows: readonly TaskRow[], pending: ReturnType<typeof pendingOf>[], extra: Partial<CommitSituation> = {}) {
    const [write] = retriedWrites(pending, at(slotNow));
    if (write === undefined) throw new Error('no retried write');
    return { ctx: commitSlot({ rows, now: slotNow, ...extra }), o: write.outcome };
  }

  it.each<[string, readonly TaskRow[], Expected, readonly unknown[]]>([
    [
      'a one-shot is written ended, its actor told, then removed; the Session retires',
      [active(ONE_SHOT)],
      { status: 'inactive' },
      [{ type: 'tasks.remove', sessionId: 's1', ids: ['sch_1'], retire: true }],
    ],
    [
      'a one-shot is removed; with another task active the Session stays',
      [active(ONE_SHOT), active(MINUTELY)],
      { status: 'inactive' },
      [{ type: 'tasks.remove', sessionId: 's1', ids: ['sch_1'], retire: false }],
    ],
    [
      'an edit of the title made meanwhile is kept beside the receipt',
      [active({ ...ONE_SHOT, title: 'renamed' }), active(MINUTELY)],
      { status: 'inactive', record: { ...ONE_SHOT, title: 'renamed' } },
      [{ type: 'tasks.remove', sessionId: 's1', ids: ['sch_1'], retire: false }],
    ],
  ])('%s', (_title, rows, written, removal) => {
    const { ctx, o } = retried(rows, [pendingOf(ONE_SHOT)]);
    const plan = writeOf(planDeliveryCommit(ctx, 's1', o));
    const row = putOf(plan, 'sch_1');
    expectMembers(row, written);
    expect(row.lastDelivery).toMatchObject({ messageId: 'm-1', scheduledAt: DUE });
    expect(plan.effects).toEqual([{ type: 'delivery.committed', row, now: at(slotNow) }, ...removal]);
    expect(plan.dropped).toEqual([]);
  });

  it("a recurring task advances past the attempt's now, not the retry's", () => {
    const { ctx, o } = retried([active(MINUTELY)], [pendingOf(MINUTELY)], { now: '2030-01-01T08:13:30.000Z' });
    const row = putOf(planDeliveryCommit(ctx, 's1', o), 'sch_2');
    expect(row.record.scheduledAt).toBe('2030-01-01T08:11:00.000Z');
  });

  it.each<[string, readonly TaskRow[]]>([
    ['deleted meanwhile', []],
    ['ended meanwhile', [ended(ONE_SHOT)]],
  ])('a receipt whose task was %s is dropped and nothing is written', (_title, rows) => {
    const { ctx, o } = retried(rows, [pendingOf(ONE_SHOT)]);
    const plan = planDeliveryCommit(ctx, 's1', o);
    expect(plan).toMatchObject({ kind: 'read', effects: [], failures: [], dropped: ['sch_1'] });
    expect(resolvedValue(plan)).toBeNull();
  });

  it('a receipt its row records already (the first write landed after all) writes nothing; its actor is told its delivery is committed', () => {
    const row = active(ONE_SHOT, { lastDelivery: { scheduledAt: DUE, deliveredAt: NOW, messageId: 'm-1' } });
    const { ctx, o } = retried([row], [pendingOf(ONE_SHOT)]);
    const plan = planDeliveryCommit(ctx, 's1', o);
    expect(plan).toMatchObject({ kind: 'read', failures: [], dropped: [] });
    expect(plan.effects).toEqual([{ type: 'delivery.committed', row, now: at(slotNow) }]);
  });

  it('writes the receipts the retried outcome carries, each past its own attempt’s now', () => {
    const third = oneShot('sch_3', '2030-01-01T08:12:00.000Z');
    const early = { ...pendingOf(MINUTELY), attemptNow: at('2030-01-01T08:10:00.500Z') };
    const late = { ...pendingOf(third), attemptNow: at('2030-01-01T08:12:00.500Z') };
    const { ctx, o } = retried([active(MINUTELY), active(third)], [early, late], { now: '2030-01-01T08:13:30.000Z' });
    expect(o).toMatchObject({ delivered: [], retried: [early, late] });
    const plan = writeOf(planDeliveryCommit(ctx, 's1', o));
    expect(putIds(plan)).toEqual(['sch_2', 'sch_3']);
    expect(putOf(plan, 'sch_2').record.scheduledAt).toBe('2030-01-01T08:11:00.000Z');
    expect(plan.commits).toEqual([early, late]);
  });

  it('a retried write that fails again hands each receipt back to its actor, where it keeps waiting', () => {
    const pending = pendingOf(ONE_SHOT);
    const { ctx, o } = retried([active(ONE_SHOT)], [pending]);
    const error = new Error('still down');
    const failed = writeOf(planDeliveryCommit(ctx, 's1', o)).onWriteFailure(error);
    const cause = { ids: ['sch_1'], stage: 'commit' as const, message: 'still down', error };
    expect(failed.commits).toEqual([pending]);
    expect(failed.failures).toEqual([cause]);
    expect(failed.effects).toEqual([
      { type: 'receipts.failed', sessionId: 's1', failures: receiptFailures([pending], cause, DEFAULT_RETRY), now: at(slotNow) },
    ]);
    expect(failed.effects).toMatchObject([{ failures: [{ ids: ['sch_1'], failure: { stage: 'commit', receipt: pending } }] }]);
  });
});

describe('retriedWrites', () => {
  it('groups the waiting receipts by Session, in the order their first receipt comes, each outcome a retry', () => {
    const a = { sessionId: 's2', reminder: reminder(ONE_SHOT, 'm-1', NOW), attemptNow: at(NOW) };
    const b = { sessionId: 's1', reminder: reminder(MINUTELY, 'm-2', NOW), attemptNow: at(NOW) };
    const c = { sessionId: 's2', reminder: reminder(oneShot('sch_3'), 'm-3', NOW), attemptNow: at(DUE) };
    expect(retriedWrites([a, b, c], at(NOW))).toEqual([
      { sessionId: 's2', outcome: { now: at(NOW), delivered: [], failedIds: [], unrecordableIds: [], retried: [a, c] } },
      { sessionId: 's1', outcome: { now: at(NOW), delivered: [], failedIds: [], unrecordableIds: [], retried: [b] } },
    ]);
    expect(retriedWrites([], at(NOW))).toEqual([]);
  });
});

describe('taskFailures', () => {
  it('each cause reaches its tasks with the policy, a parked one without retries', () => {
    const causes: FailureCause[] = [
      { ids: ['a'], stage: 'flush', message: 'x' },
      { ids: ['b', 'c'], stage: 'followup', message: 'y', park: true },
    ];
    expect(taskFailures(causes, DEFAULT_RETRY)).toEqual([
      { ids: ['a'], failure: { stage: 'flush', message: 'x', retry: DEFAULT_RETRY } },
      { ids: ['b', 'c'], failure: { stage: 'followup', message: 'y', retry: false } },
    ]);
  });
});

describe('mergeDeliveryPlans', () => {
  const rows = [active(ONE_SHOT), active(MINUTELY, { sessionId: 's2' }), active(oneShot('sch_3'), { sessionId: 's3' })];
  const ctx = commitSlot({ rows, now: NOW });
  const s1 = planDeliveryCommit(ctx, 's1', outcome(NOW, [reminder(ONE_SHOT, 'm-1', NOW)]));
  const s2 = planDeliveryCommit(ctx, 's2', outcome(NOW, [reminder(MINUTELY, 'm-2', NOW)]));
  const s3 = planDeliveryCommit(ctx, 's3', outcome(NOW, [], { failedIds: ['sch_3'] }));

  it("writes every Session's rows in one batch, with each plan's effects, failures and receipts in order", () => {
    const merged = writeOf(mergeDeliveryPlans([s1, s3, s2]));
    expect(putIds(merged)).toEqual(['sch_1', 'sch_2']);
    expect(merged.changes).toEqual([...writeOf(s1).changes, ...writeOf(s2).changes]);
    expect(merged.effects).toEqual([...s1.effects, ...s3.effects, ...s2.effects]);
    expect(merged.failures).toEqual(s3.failures);
    expect(merged.commits.map((c) => c.reminder.id)).toEqual(['sch_1', 'sch_2']);
  });

  it('a failed write settles the writing plans as their own failures say, and the reading one as it planned', () => {
    const error = new Error('disk full');
    const failed = writeOf(mergeDeliveryPlans([s1, s3, s2])).onWriteFailure(error);
    const own = [writeOf(s1).onWriteFailure(error), { effects: s3.effects, failures: s3.failures }, writeOf(s2).onWriteFailure(error)];
    expect(failed.effects).toEqual(own.flatMap((o) => o.effects));
    expect(failed.failures).toEqual(own.flatMap((o) => o.failures));
    expect(failed.commits.map((c) => c.reminder.id)).toEqual(['sch_1', 'sch_2']);
  });

  it('plans that write nothing merge into a read', () => {
    const merged = mergeDeliveryPlans([s3]);
    expect(merged.kind).toBe('read');
    expect(merged.effects).toEqual(s3.effects);
  });
});
