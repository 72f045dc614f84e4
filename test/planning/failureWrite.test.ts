// The failure write: which rows get the failure status their task actors hold, and which are left
// alone because the stored status already says it, a receipt's write is pending, or a delivery
// was committed since.
import type { DeliveryFailure, TaskRow } from '../../src/domain/tasks/types.ts';
import { planFailureWrite } from '../../src/planning/failureWrite.ts';
import { active, answerOf, batchOf, ended, every, failure, oneShot, putIds, resolvedValue, slot, writeOf } from './fixtures.ts';

const SECOND = failure({ attempts: 2, lastAt: '2030-01-01T08:00:05.000Z', nextRetryAt: '2030-01-01T08:00:15.000Z' });

describe('planFailureWrite', () => {
  it.each<[string, readonly TaskRow[], Record<string, DeliveryFailure>, readonly string[], readonly string[]]>([
    ['a first failure is written', [active(every('sch_1'))], { sch_1: failure() }, ['sch_1'], ['sch_1']],
    [
      'a later attempt replaces the stored status',
      [active(every('sch_1'), { failure: failure() })],
      { sch_1: SECOND },
      ['sch_1'],
      ['sch_1'],
    ],
    [
      'a status the row already stores is not written again',
      [active(every('sch_1'), { failure: SECOND })],
      { sch_1: { ...SECOND } },
      ['sch_1'],
      [],
    ],
    [
      'a failed receipt write (stage commit) is left to its own retried write',
      [active(every('sch_1'))],
      { sch_1: failure({ stage: 'commit' }) },
      ['sch_1'],
      [],
    ],
    [
      'a task whose actor holds no failure had a delivery committed since',
      [active(every('sch_1'), { failure: failure() })],
      {},
      ['sch_1'],
      [],
    ],
    ['an ended task is not written', [ended(oneShot('sch_1'))], { sch_1: failure() }, ['sch_1'], []],
    ['a deleted task is not written', [], { sch_1: failure() }, ['sch_1'], []],
    [
      'a task named twice is written once, beside the others of the batch',
      [active(every('sch_1')), active(every('sch_2'), { sessionId: 's2' })],
      { sch_1: failure(), sch_2: SECOND },
      ['sch_1', 'sch_2', 'sch_1'],
      ['sch_1', 'sch_2'],
    ],
  ])('%s', (_title, rows, failures, ids, written) => {
    const plan = planFailureWrite(slot({ rows, failures }), ids);
    expect(resolvedValue(plan)).toBeNull();
    expect(plan.kind).toBe(written.length === 0 ? 'read' : 'write');
    expect(putIds(plan)).toEqual(written);
    for (const row of batchOf(plan)?.puts ?? []) {
      const stored = rows.find((r) => r.record.id === row.record.id);
      expect(row).toEqual({ ...stored, failure: failures[row.record.id] });
    }
    expect(plan.effects).toEqual([]);
  });

  it('the write changes no timing, tells no actor, and a failed write changes nothing', () => {
    const plan = writeOf(planFailureWrite(slot({ rows: [active(every('sch_1'))], failures: { sch_1: failure() } }), ['sch_1']));
    expect(plan.timing).toBe('keep');
    expect(plan.effects).toEqual([]);
    expect(plan.changes).toEqual([]);
    expect(plan.batch.deletes).toEqual([]);
    const failed = plan.onWriteFailure(new Error('disk full'));
    expect(answerOf(failed.reply)).toBeNull();
    expect(failed).toMatchObject({ effects: [], failures: [], commits: [] });
  });
});
