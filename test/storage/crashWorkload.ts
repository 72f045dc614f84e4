// The deterministic workload of the crash test. Batch i puts the `counter` row (titled
// "Batch i") and task sch_i, re-puts sch_(i-1) as updated when i is a multiple of 3, and deletes
// sch_(i-10), so the live domain stays small however long the test runs, and the domain after
// any prefix of batches 1..k can be computed directly and compared with what a reopen finds.
import type { DomainSnapshot } from '../../src/domain/codec/index.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import type { CommitBatch } from '../../src/ports.ts';
import { deliveredRow } from './fixtures.ts';

const LIVE = 10;

const counterRow = (i: number): TaskRow => ({
  sessionId: 'crash',
  status: 'active',
  record: { id: 'counter', kind: 'every', title: `Batch ${i}`, prompt: 'Count', scheduledAt: '2030-01-01T08:00:00.000Z', everySeconds: 60 },
});

const taskRow = (j: number, updated: boolean): TaskRow => {
  const base = deliveredRow(j, 1 + (j % 4));
  return updated ? { ...base, status: 'inactive', record: { ...base.record, title: `Task ${j} (updated)` } } : base;
};

/** The batch with number `i` (1, 2, …). */
export function batchFor(i: number): CommitBatch {
  const puts = [counterRow(i), taskRow(i, false)];
  if (i % 3 === 0 && i > 1) puts.push(taskRow(i - 1, true));
  return { puts, deletes: i > LIVE ? [`sch_${i - LIVE}`] : [], nextTaskNumber: i + 1 };
}

/** The domain after batches 1..k, rows sorted by id. */
export function expectedAfter(k: number): DomainSnapshot {
  if (k === 0) return { tasks: [], nextTaskNumber: 1 };
  const tasks: TaskRow[] = [counterRow(k)];
  for (let j = Math.max(1, k - LIVE + 1); j <= k; j++) tasks.push(taskRow(j, (j + 1) % 3 === 0 && j + 1 <= k));
  return { tasks: sortById(tasks), nextTaskNumber: k + 1 };
}

/** The number of the last batch a domain holds (0 for an empty domain). */
export function batchesIn(domain: DomainSnapshot): number {
  const title = domain.tasks.find((row) => row.record.id === 'counter')?.record.title;
  return title === undefined ? 0 : Number(title.slice('Batch '.length));
}

/** Rows sorted by task id (plain string order). */
export const sortById = (rows: readonly TaskRow[]): TaskRow[] =>
  [...rows].sort((a, b) => (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0));
