// The timer's owner and the receipts waiting for their write (scheduler.ts): it keeps no copy of
// them — each is the one its task actor reported with its latest wake — and marks only that a
// receipt's write is under way, so each is sent once until its actor reports again or the write
// fails.
import type { DeliveredReminder, FlushedAttempt, TaskWake, WaitingReceipt } from '../../machines/events.ts';
import type { TaskRow } from '../../src/domain/tasks/types.ts';
import { resolveConfig } from '../../src/runtime/config.ts';
import { Scheduler } from '../../src/runtime/scheduler.ts';

const T = Date.parse('2030-01-01T09:00:00.000Z');

/** A scheduler over three active tasks of two Sessions, with a clock that stands still and records what it sends. */
function setup() {
  const rows = new Map<string, TaskRow>(
    [
      ['sch_1', 's1'],
      ['sch_2', 's1'],
      ['sch_3', 's2'],
    ].map(([id, sessionId]) => [id as string, { record: { id }, sessionId, status: 'active' } as unknown as TaskRow]),
  );
  const writes: FlushedAttempt[][] = [];
  const due: string[] = [];
  const scheduler = new Scheduler({
    clock: { now: () => T, setTimeout: () => ({}), clearTimeout: () => {} },
    config: resolveConfig({}),
    sessionOf: (id) => rows.get(id)?.sessionId,
    logger: { warn() {}, error() {} },
    onDue: (_now, tasks) => due.push(...tasks.flatMap((d) => d.ids)),
    onCommitDue: (flushed) => writes.push([...flushed]),
    rowOf: (id) => rows.get(id),
    activeCountOf: () => 2,
    activeRowsOf: (sessionId) => [...rows.values()].filter((row) => row.sessionId === sessionId),
    onActivate: () => {},
  });
  const receipt = (id: string, messageId = 'm-1'): WaitingReceipt => ({
    sessionId: rows.get(id)?.sessionId ?? '',
    reminder: { id, messageId } as DeliveredReminder,
    attemptNow: T - 1000,
  });
  const wake = (id: string, held: WaitingReceipt | undefined, at: number | undefined = T + 60_000): TaskWake => ({
    type: 'task.wake',
    id,
    waits: 'retry',
    at,
    failure: undefined,
    receipt: held,
  });
  /** The receipts each write carried, by Session. */
  const written = () => writes.map((w) => w.map((f) => [f.sessionId, f.outcome.retried?.map((r) => r.reminder.id)]));
  return { scheduler, writes, due, receipt, wake, written, rows };
}

/** Lets the microtask that writes waiting receipts after a successful write run. */
const microtasks = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('receipts waiting for their write', () => {
  it('the retried writes carry the receipts the wakes reported, grouped by Session', () => {
    const s = setup();
    const r1 = s.receipt('sch_1');
    const r3 = s.receipt('sch_3');
    s.scheduler.reported(s.wake('sch_1', r1));
    s.scheduler.reported(s.wake('sch_3', r3));
    expect(s.scheduler.receiptOf('sch_1')).toBe(r1);
    expect(s.scheduler.receiptOf('sch_2')).toBeUndefined();
    s.scheduler.retryNow(['sch_1', 'sch_2', 'sch_3']);
    expect(s.writes).toEqual([
      [
        { sessionId: 's1', outcome: { now: T, delivered: [], failedIds: [], unrecordableIds: [], retried: [r1] } },
        { sessionId: 's2', outcome: { now: T, delivered: [], failedIds: [], unrecordableIds: [], retried: [r3] } },
      ],
    ]);
  });

  it('a receipt whose write is under way is not sent again, even when its actor reports meanwhile', async () => {
    const s = setup();
    const r1 = s.receipt('sch_1');
    s.scheduler.reported(s.wake('sch_1', r1));
    s.scheduler.retryNow(['sch_1']);
    s.scheduler.reported(s.wake('sch_1', r1, undefined)); // a retry now: the actor forgot its backoff
    s.scheduler.retryNow(['sch_1']);
    s.scheduler.recover();
    await microtasks();
    s.scheduler.drainReceipts();
    expect(s.written()).toEqual([[['s1', ['sch_1']]]]);
  });

  it('a failed write lets it go again; a successful one ends when the actor reports without it', async () => {
    const s = setup();
    const r1 = s.receipt('sch_1');
    s.scheduler.reported(s.wake('sch_1', r1));
    s.scheduler.retryNow(['sch_1']);
    s.scheduler.receiptsUnwritten(['sch_1']); // the write failed: the actor reports its next retry
    s.scheduler.reported(s.wake('sch_1', r1));
    s.scheduler.recover();
    await microtasks();
    expect(s.written()).toEqual([[['s1', ['sch_1']]], [['s1', ['sch_1']]]]);
    // Written: until its actor reports, another successful write does not send it again.
    s.scheduler.recover();
    await microtasks();
    expect(s.writes).toHaveLength(2);
    s.scheduler.reported({ type: 'task.wake', id: 'sch_1', waits: 'due', at: T + 3_600_000, failure: undefined });
    expect(s.scheduler.receiptOf('sch_1')).toBeUndefined();
    s.scheduler.drainReceipts();
    expect(s.writes).toHaveLength(2);
  });

  it('an edit keeps its receipt waiting at the write’s retry; a delete forgets it', () => {
    const s = setup();
    const r2 = s.receipt('sch_2');
    s.scheduler.reported(s.wake('sch_2', r2));
    // The committed edit: the task keeps its key (the write's retry), not its new due instant.
    s.scheduler.track({ ...(s.rows.get('sch_2') as TaskRow), record: { id: 'sch_2', scheduledAt: '2030-01-01T08:00:00.000Z' } } as TaskRow);
    expect(s.scheduler.receiptOf('sch_2')).toBe(r2);
    s.scheduler.untrack('sch_2');
    expect(s.scheduler.receiptOf('sch_2')).toBeUndefined();
    s.scheduler.drainReceipts();
    expect(s.writes).toEqual([]);
  });
});
