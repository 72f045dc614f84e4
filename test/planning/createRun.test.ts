// A run of creates for different Sessions merged into one write: every row, remembered call and
// counter of the run in one batch, each call answered on its own, and each answered as its own
// plan says when the shared write fails.
import { CALL_RETENTION_MS } from '../../src/domain/tasks/rememberedCalls.ts';
import { mergeCreatePlans } from '../../src/planning/createRun.ts';
import { type IdempotentCall, planIdempotent } from '../../src/planning/idempotentPlans.ts';
import { persistenceFailure, planCreate, type SlotContext } from '../../src/planning/mutations.ts';
import type { SlotPlan, WritePlan } from '../../src/planning/slotPlan.ts';
import { answerOf, at, remembered, slot, T0 } from './fixtures.ts';

const ARGS = { title: 't', prompt: 'p', after_seconds: 60 };
const EXPIRED = new Date(at(T0) - CALL_RETENTION_MS - 1).toISOString();

/** The create of `sessionId` written under `id`, remembered under `callId` when given. */
function createOf(ctx: SlotContext, sessionId: string, id: string, callId?: string): WritePlan {
  const plan = (): SlotPlan => planCreate(ctx, sessionId, ARGS);
  const call: IdempotentCall | undefined =
    callId === undefined ? undefined : { sessionId, callId, operation: 'schedule_create', args: ARGS };
  const planned = call === undefined ? plan() : planIdempotent(ctx, call, plan);
  if (planned.kind !== 'create') throw new Error('a create plans a create');
  return planned.withId(id);
}

const withCounter = (plan: WritePlan, nextTaskNumber: number): WritePlan => ({ ...plan, batch: { ...plan.batch, nextTaskNumber } });

describe('mergeCreatePlans', () => {
  it('writes the rows of every Session in one batch, with effects, changes and answers in the run order', () => {
    const ctx = slot();
    const plans = [createOf(ctx, 's1', 'sch_1'), createOf(ctx, 's2', 'sch_2'), createOf(ctx, 's3', 'sch_3')];
    const run = mergeCreatePlans(plans);
    expect(run.batch).toEqual({ puts: plans.flatMap((p) => p.batch.puts), deletes: [] });
    expect(run.batch.puts.map((row) => [row.sessionId, row.record.id])).toEqual([
      ['s1', 'sch_1'],
      ['s2', 'sch_2'],
      ['s3', 'sch_3'],
    ]);
    expect(run.effects).toEqual(plans.flatMap((p) => p.effects));
    expect(run.changes).toEqual([
      { sessionId: 's1', ids: ['sch_1'] },
      { sessionId: 's2', ids: ['sch_2'] },
      { sessionId: 's3', ids: ['sch_3'] },
    ]);
    expect(run.replies.map((reply) => (answerOf(reply) as { id: string }).id)).toEqual(['sch_1', 'sch_2', 'sch_3']);
  });

  it.each([
    ['no plan names a counter', [undefined, undefined], undefined],
    ['the highest counter any plan names', [5, 8], 8],
    ['one plan names a counter', [undefined, 3], 3],
  ])('the counter: %s', (_title, counters, merged) => {
    const ctx = slot();
    const plans = counters.map((n, i) => {
      const plan = createOf(ctx, `s${i}`, `sch_${i}`);
      return n === undefined ? plan : withCounter(plan, n);
    });
    expect(mergeCreatePlans(plans).batch.nextTaskNumber).toBe(merged);
  });

  it('remembers every call of the run and forgets an expired call once, however many plans would', () => {
    const old = remembered('old', EXPIRED, { sessionId: 's9' });
    const ctx = slot({ calls: [old] });
    const run = mergeCreatePlans([createOf(ctx, 's1', 'sch_1', 'c1'), createOf(ctx, 's2', 'sch_2', 'c2'), createOf(ctx, 's3', 'sch_3')]);
    expect(run.batch.calls?.map((c) => [c.sessionId, c.callId])).toEqual([
      ['s1', 'c1'],
      ['s2', 'c2'],
    ]);
    expect(run.batch.forgetCalls).toEqual([{ sessionId: 's9', callId: 'old' }]);
  });

  it('a failed write answers every create of the run persistence_uncertain and tells no actor', () => {
    const ctx = slot();
    const run = mergeCreatePlans([createOf(ctx, 's1', 'sch_1'), createOf(ctx, 's2', 'sch_2')]);
    const error = new Error('connection lost during COMMIT');
    const failed = run.failed(error);
    expect(failed.replies.map(answerOf)).toEqual([persistenceFailure(error), persistenceFailure(error)]);
    expect(failed.effects).toEqual([]);
  });
});
