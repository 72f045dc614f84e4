// Idempotent calls: a first call is planned and remembered in its own batch; a repeat answers the
// first answer and writes nothing; a `callId` reused for another call is refused; a call in doubt
// sends its first plan again; each remembered call forgets a bounded few expired ones.
import { rejected } from '../../machines/scheduleReply.ts';
import { CALL_RETENTION_MS, type RememberedCall } from '../../src/domain/tasks/rememberedCalls.ts';
import { FORGET_PER_COMMIT, type IdempotentCall, planIdempotent } from '../../src/planning/idempotentPlans.ts';
import { planCreate, planDelete, planUpdate } from '../../src/planning/mutations.ts';
import { answer, read, type SlotPlan } from '../../src/planning/slotPlan.ts';
import { active, at, batchOf, every, refusalCode, remembered, resolvedValue, slot, T0, writeOf } from './fixtures.ts';

const DELETE: IdempotentCall = { sessionId: 's1', callId: 'call-1', operation: 'schedule_delete', args: { id: 'sch_1' } };
const ROWS = [active(every('sch_1'))];
const YESTERDAY = new Date(at(T0) - CALL_RETENTION_MS).toISOString();
const FRESH = '2030-01-01T07:00:00.000Z';

describe('planIdempotent', () => {
  it('a first call is planned, and remembered with its answer in the same batch', () => {
    const ctx = slot({ rows: ROWS });
    const plan = writeOf(planIdempotent(ctx, DELETE, () => planDelete(ctx, 's1', 'sch_1')));
    expect(plan.batch.deletes).toEqual(['sch_1']);
    expect(plan.batch.calls).toEqual([
      {
        sessionId: 's1',
        callId: 'call-1',
        operation: 'schedule_delete',
        arguments: '{"id":"sch_1"}',
        answer: { id: 'sch_1', deleted: true },
        calledAt: T0,
      },
    ]);
    expect(plan.batch.forgetCalls).toBeUndefined();
    expect(resolvedValue(plan)).toEqual({ id: 'sch_1', deleted: true });
  });

  it('a call that changes nothing is still remembered, in a batch of its own', () => {
    const ctx = slot({ rows: ROWS });
    const call: IdempotentCall = { sessionId: 's1', callId: 'c', operation: 'schedule_update', args: { id: 'sch_1' } };
    const plan = writeOf(planIdempotent(ctx, call, () => planUpdate(ctx, 's1', 'sch_1', {})));
    expect(plan.changes).toEqual([]);
    expect(plan.batch).toMatchObject({ puts: [], deletes: [], calls: [{ callId: 'c', operation: 'schedule_update' }] });
  });

  it.each<[string, () => SlotPlan]>([
    ['a refusal answered', () => answer({ code: 'schedule_not_found', message: 'none' })],
    ['a delete of nothing', () => planDelete(slot({ rows: ROWS }), 's1', 'sch_9')],
    ['a rejection', () => read(rejected(new Error('boom')))],
  ])('%s is not remembered', (_title, plan) => {
    const planned = plan();
    const result = planIdempotent(slot({ rows: ROWS }), DELETE, () => planned);
    expect(result).toBe(planned);
    expect(result.kind).toBe('read');
  });

  it.each<[string, IdempotentCall, unknown]>([
    ['the same call answers the first answer', DELETE, { id: 'sch_1', deleted: true }],
    [
      'the same arguments in another member order answer it too',
      { sessionId: 's1', callId: 'c', operation: 'schedule_update', args: { title: 'a', id: 'sch_1' } },
      { id: 'sch_1', title: 'a' },
    ],
  ])('%s, writing nothing', (_title, call, first) => {
    const record = remembered(call.callId, FRESH, {
      operation: call.operation,
      arguments: call.operation === 'schedule_delete' ? '{"id":"sch_1"}' : '{"id":"sch_1","title":"a"}',
      answer: first,
    });
    const plan = planIdempotent(slot({ rows: ROWS, calls: [record] }), call, () => {
      throw new Error('a repeated call is not planned again');
    });
    expect(plan.kind).toBe('read');
    const reply = resolvedValue(plan);
    expect(reply).toEqual(first);
    expect(reply).not.toBe(record.answer);
  });

  it.each<[string, IdempotentCall]>([
    ['other arguments', { ...DELETE, args: { id: 'sch_2' } }],
    ['another operation', { ...DELETE, operation: 'schedule_update' }],
  ])('a callId used before for %s is refused with idempotency_conflict', (_title, call) => {
    const ctx = slot({ rows: ROWS, calls: [remembered('call-1', FRESH)] });
    expect(refusalCode(() => planIdempotent(ctx, call, () => planDelete(ctx, 's1', 'sch_1')))).toBe('idempotency_conflict');
  });

  it("another Session's callId is its own: the call is planned", () => {
    const ctx = slot({ rows: [active(every('sch_1'), { sessionId: 's2' })], calls: [remembered('call-1', FRESH)] });
    const plan = planIdempotent(ctx, { ...DELETE, sessionId: 's2' }, () => planDelete(ctx, 's2', 'sch_1'));
    expect(batchOf(plan)?.deletes).toEqual(['sch_1']);
    expect(batchOf(plan)?.calls).toMatchObject([{ sessionId: 's2', callId: 'call-1' }]);
  });

  it('a create is remembered with the id the slot gives it', () => {
    const ctx = slot();
    const args = { title: 't', prompt: 'p', after_seconds: 60 };
    const call: IdempotentCall = { sessionId: 's1', callId: 'c', operation: 'schedule_create', args };
    const plan = planIdempotent(ctx, call, () => planCreate(ctx, 's1', args));
    if (plan.kind !== 'create') throw new Error('a create plans a create');
    const written = plan.withId('sch_5');
    expect(written.batch.calls).toMatchObject([{ callId: 'c', operation: 'schedule_create', answer: { id: 'sch_5', kind: 'after' } }]);
  });

  it("a call in doubt sends the first attempt's plan again (the same rows, whether or not they landed)", () => {
    const ctx = slot({ rows: ROWS });
    const first = writeOf(planIdempotent(ctx, DELETE, () => planDelete(ctx, 's1', 'sch_1')));
    const inDoubt = { plan: first, call: first.batch.calls?.[0] as RememberedCall };
    const notPlanned = () => {
      throw new Error('a call in doubt is not planned again');
    };
    expect(planIdempotent(ctx, DELETE, notPlanned, inDoubt)).toBe(first);
    expect(refusalCode(() => planIdempotent(ctx, { ...DELETE, args: { id: 'sch_2' } }, notPlanned, inDoubt))).toBe('idempotency_conflict');
  });

  it.each([
    ['none expired', [FRESH, FRESH], 0],
    ['one exactly a retention period old', [YESTERDAY, FRESH], 1],
    ['expired ones stop at the first younger call', [YESTERDAY, FRESH, YESTERDAY], 1],
    ['at most a bounded few per commit', Array.from({ length: FORGET_PER_COMMIT + 4 }, () => YESTERDAY), FORGET_PER_COMMIT],
  ])('forgets expired calls with the remembered one: %s', (_title, calledAts, forgotten) => {
    const calls = calledAts.map((calledAt, i) => remembered(`old-${i}`, calledAt, { sessionId: 's9' }));
    const ctx = slot({ rows: ROWS, calls });
    const plan = planIdempotent(ctx, DELETE, () => planDelete(ctx, 's1', 'sch_1'));
    expect(batchOf(plan)?.forgetCalls ?? []).toEqual(calls.slice(0, forgotten).map(({ sessionId, callId }) => ({ sessionId, callId })));
  });
});
