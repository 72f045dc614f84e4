// `remote.bulk` plans: the request checked, the selection resolved when the call starts, each task
// planned as its single-task method would (or skipped by reason), a batch at a time, and the
// answer remembered with the last batch when the call has a `callId`.
import { BULK_BATCH_SIZE, type BulkProgress, type BulkResult } from '../../src/domain/tasks/bulk.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { BULK_CALL_SCOPE, planBulk, planBulkBatch } from '../../src/planning/bulkPlans.ts';
import type { SlotContext } from '../../src/planning/mutations.ts';
import { catalogEntry } from '../../src/planning/remotePlans.ts';
import {
  active,
  batchOf,
  ended,
  every,
  oneShot,
  putIds,
  putOf,
  refusalCode,
  remembered,
  resolvedValue,
  type Situation,
  slot,
  T0,
  writeOf,
} from './fixtures.ts';

/** s1: sch_1 running, sch_2 paused, sch_3 ended, sch_5 with a run-now request waiting; s2: sch_4 running. */
const STORED: Situation = {
  rows: [
    active(every('sch_1')),
    active(every('sch_2'), { pausedAt: '2030-01-01T07:00:00.000Z' }),
    ended(oneShot('sch_3')),
    active(every('sch_4'), { sessionId: 's2' }),
    active(every('sch_5'), { triggeredAt: '2030-01-01T07:59:00.000Z' }),
  ],
};

const bulk = (ctx: SlotContext, request: unknown, callId?: unknown) => planBulk(ctx, request, callId, (row) => catalogEntry(row));
const listed = (...ids: string[]) => ids.map((id) => ({ sessionId: id === 'sch_4' ? 's2' : 's1', id }));

describe('planBulk', () => {
  it.each<[string, unknown, BulkResult, readonly string[]]>([
    [
      'pause listed tasks: the running one paused, the rest skipped by reason',
      { action: 'pause', note: 'maintenance', tasks: listed('sch_1', 'sch_2', 'sch_3', 'sch_404') },
      {
        action: 'pause',
        matched: 4,
        done: 1,
        skipped: [
          { code: 'schedule_not_found', count: 1, ids: ['sch_404'] },
          { code: 'already_paused', count: 1, ids: ['sch_2'] },
          { code: 'schedule_ended', count: 1, ids: ['sch_3'] },
        ],
      },
      ['sch_1'],
    ],
    [
      "resume every task a filter matches in one Session (another Session's task is not swept in)",
      { action: 'resume', filter: { sessionId: 's1' } },
      {
        action: 'resume',
        matched: 4,
        done: 1,
        skipped: [
          { code: 'not_paused', count: 2, ids: ['sch_1', 'sch_5'] },
          { code: 'schedule_ended', count: 1, ids: ['sch_3'] },
        ],
      },
      ['sch_2'],
    ],
    [
      'a task listed twice is taken once',
      { action: 'pause', tasks: listed('sch_1', 'sch_1') },
      { action: 'pause', matched: 1, done: 1, skipped: [] },
      ['sch_1'],
    ],
    [
      "a listed task under another Session's id is not found",
      { action: 'pause', tasks: [{ sessionId: 's2', id: 'sch_1' }] },
      { action: 'pause', matched: 1, done: 0, skipped: [{ code: 'schedule_not_found', count: 1, ids: ['sch_1'] }] },
      [],
    ],
  ])('%s', (_title, request, result, written) => {
    const plan = bulk(slot(STORED), request);
    expect(resolvedValue(plan)).toEqual(result);
    expect(plan.continuation).toBeUndefined();
    expect(putIds(plan)).toEqual(written);
  });

  it('pausing with a note writes the pause and the note', () => {
    const row = putOf(bulk(slot(STORED), { action: 'pause', note: 'maintenance', tasks: listed('sch_1') }), 'sch_1');
    expect(row).toMatchObject({ pausedAt: T0, pauseNote: 'maintenance' });
  });

  it('running now records a request, and a task whose request already waits is retried at once without a write', () => {
    const plan = writeOf(bulk(slot(STORED), { action: 'trigger', tasks: listed('sch_1', 'sch_5') }));
    expect(putIds(plan)).toEqual(['sch_1']);
    expect(putOf(plan, 'sch_1').triggeredAt).toBe(T0);
    expect(plan.retryNow).toEqual(['sch_5']);
    expect(plan.effects.map((e) => e.type)).toEqual(['task.updated', 'tasks.retry']);
    expect(plan.changes).toEqual([{ sessionId: 's1', ids: ['sch_1'] }]);
    expect(resolvedValue(plan)).toMatchObject({ done: 2, skipped: [] });
  });

  it('changes of tasks in two Sessions are told per Session', () => {
    const plan = writeOf(bulk(slot(STORED), { action: 'pause', tasks: listed('sch_1', 'sch_4') }));
    expect(plan.changes).toEqual([
      { sessionId: 's1', ids: ['sch_1'] },
      { sessionId: 's2', ids: ['sch_4'] },
    ]);
  });

  it('a selection larger than a batch goes on in a slot of its own, and the last batch answers the whole call', () => {
    const rows: TaskRow[] = Array.from({ length: BULK_BATCH_SIZE + 5 }, (_, i) => active(every(`sch_${i + 1}`)));
    const ctx = slot({ rows });
    const first = bulk(ctx, { action: 'pause', filter: { sessionId: 's1' } }, 'bulk-1');
    expect(putIds(first)).toHaveLength(BULK_BATCH_SIZE);
    expect(batchOf(first)?.calls).toBeUndefined();
    const progress = first.continuation?.kind === 'bulk.batch' ? first.continuation.progress : undefined;
    expect(progress).toMatchObject({ next: BULK_BATCH_SIZE, done: BULK_BATCH_SIZE, matched: BULK_BATCH_SIZE + 5 });
    const last = planBulkBatch(ctx, progress as BulkProgress);
    expect(putIds(last)).toEqual(['sch_201', 'sch_202', 'sch_203', 'sch_204', 'sch_205']);
    expect(last.continuation).toBeUndefined();
    const answer = { action: 'pause', matched: BULK_BATCH_SIZE + 5, done: BULK_BATCH_SIZE + 5, skipped: [] };
    expect(resolvedValue(last)).toEqual(answer);
    expect(batchOf(last)?.calls).toEqual([
      { sessionId: 's1', callId: 'bulk-1', operation: 'remote.bulk', arguments: expect.any(String), answer, calledAt: T0 },
    ]);
  });

  it.each([
    ["the filter's Session", { action: 'pause', filter: { sessionId: 's2' } }, 's2'],
    ["the first listed task's Session", { action: 'pause', tasks: listed('sch_4', 'sch_1') }, 's2'],
    ['the bulk scope when no Session is named', { action: 'pause', filter: { kind: 'every' } }, BULK_CALL_SCOPE],
  ])('a callId is remembered under %s', (_title, request, scope) => {
    const plan = bulk(slot(STORED), request, 'bulk-1');
    expect(batchOf(plan)?.calls?.map((c) => [c.sessionId, c.callId])).toEqual([[scope, 'bulk-1']]);
  });

  it('a repeated callId answers the first answer and writes nothing; one used for another call is refused', () => {
    const request = { action: 'pause', tasks: listed('sch_1') };
    const first = bulk(slot(STORED), request, 'bulk-1');
    const record = batchOf(first)?.calls?.[0];
    const ctx = slot({ ...STORED, calls: record === undefined ? [] : [record] });
    const again = bulk(ctx, request, 'bulk-1');
    expect(again.kind).toBe('read');
    expect(resolvedValue(again)).toEqual(resolvedValue(first));
    expect(refusalCode(() => bulk(ctx, { action: 'resume', tasks: listed('sch_1') }, 'bulk-1'))).toBe('idempotency_conflict');
    const other = slot({ ...STORED, calls: [remembered('bulk-1', T0)] });
    expect(refusalCode(() => bulk(other, request, 'bulk-1'))).toBe('idempotency_conflict');
  });

  it('a failed write skips the batch as persistence_uncertain, forgets no call and still goes on', () => {
    const rows: TaskRow[] = Array.from({ length: BULK_BATCH_SIZE + 1 }, (_, i) => active(every(`sch_${i + 1}`)));
    const first = writeOf(bulk(slot({ rows }), { action: 'pause', filter: {} }, 'bulk-1'));
    const failed = first.onWriteFailure(new Error('disk full'));
    const progress = failed.continuation?.kind === 'bulk.batch' ? failed.continuation.progress : undefined;
    expect(progress).toMatchObject({ next: BULK_BATCH_SIZE, done: 0 });
    expect(progress?.remember).toBeUndefined();
    expect(progress?.skipped).toEqual([{ code: 'persistence_uncertain', count: BULK_BATCH_SIZE, ids: expect.any(Array) }]);
    expect(failed.effects).toEqual([]);
  });

  it.each([
    ['an unknown action', { action: 'stop', tasks: [] }, undefined, 'invalid_selector'],
    ['a note with resume', { action: 'resume', note: 'x', tasks: [] }, undefined, 'invalid_selector'],
    ['both tasks and a filter', { action: 'pause', tasks: [], filter: {} }, undefined, 'invalid_selector'],
    ['a listed task without its Session', { action: 'pause', tasks: [{ id: 'sch_1' }] }, undefined, 'invalid_selector'],
    ['an unknown filter member', { action: 'pause', filter: { owner: 'me' } }, undefined, 'invalid_selector'],
    ['an empty callId', { action: 'pause', tasks: [] }, '', 'invalid_selector'],
    ['a request that is not an object', 'pause all', undefined, 'invalid_selector'],
  ])('refuses %s', (_title, request, callId, code) => {
    expect(refusalCode(() => bulk(slot(STORED), request, callId))).toBe(code);
  });
});
