// Pausing, resuming and running a task now, purely (docs/management.md). A paused task stays
// active and keeps its record; `pausedAt` sits beside the record, so a pause never changes what a
// compare-and-set `expected` is compared with. On resume a one-shot keeps its target (delivered at
// once when it has passed); a recurring task whose target has passed moves to its first target
// strictly after the resume instant, so the occurrences missed while paused are not delivered.
// Run now records the request instant; the delivery it asks for is made as soon as the Session
// can take it, and its receipt says `trigger: "manual"`.
import { formatInstant, instantMs } from './instant.ts';
import { ruleFromRecord } from './records.ts';
import { nextTargetAfter } from './recurrence.ts';
import { isRecurringKind, type TaskRow } from './types.ts';

/** The row paused at `now`; a paused row is returned as it is. */
export function pauseRow(row: TaskRow, now: number): TaskRow {
  if (row.pausedAt !== undefined) return row;
  return { ...row, pausedAt: formatInstant(now) };
}

/** The row resumed at `now`; a row that is not paused is returned as it is. */
export function resumeRow(row: TaskRow, now: number): TaskRow {
  if (row.pausedAt === undefined) return row;
  const { pausedAt: _, ...resumed } = row;
  const committed = instantMs(row.record.scheduledAt);
  if (!isRecurringKind(row.record.kind) || committed > now) return resumed;
  const next = nextTargetAfter(ruleFromRecord(row.record), committed, now);
  // A rule with no target left before year 10000 keeps its passed target and is delivered once more.
  if (next === null) return resumed;
  return { ...resumed, record: { ...row.record, scheduledAt: formatInstant(next) } };
}

/** The row with a run-now request at `now`; an earlier request still waiting is kept. */
export function triggerRow(row: TaskRow, now: number): TaskRow {
  if (row.triggeredAt !== undefined) return row;
  return { ...row, triggeredAt: formatInstant(now) };
}
