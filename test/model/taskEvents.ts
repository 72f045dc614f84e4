// The concrete events the task-machine model offers in each state, for model inputs of a one-shot
// and a recurring task. The task machine decides on the times and rows its events carry, so each
// event is built from the snapshot it is offered in: a tick at the current target, a title edit or
// a timing change (the target moving between two instants, so the model stays finite), a commit
// that ends a one-shot or advances a recurring task, a failure at one of two points. Only what
// the real service can be driven to do from a settled state is offered (see `offeredTaskEvents`).
import type { SnapshotFrom } from 'xstate';
import type { TaskEvent, TaskMachine } from '../../machines/taskMachine.ts';
import { formatInstant, instantMs } from '../../src/domain/instant.ts';
import type { TaskRow } from '../../src/domain/types.ts';

type Snap = SnapshotFrom<TaskMachine>;

/**
 * Where a failed attempt fails: the Session's resolve or flush. (A failed write after a successful
 * flush also ends the attempt as failed, but its receipt is then written by a later write as an
 * ordinary change of the row — a step this machine's events cannot stand for; the user model and
 * test/service/commitRetry.test.ts cover it.)
 */
export type TaskFault = 'resolve' | 'flush';
export const TASK_FAULTS: readonly TaskFault[] = ['resolve', 'flush'];

/** What a model event stands for, read by the driver. */
export type TaskStep = 'tick' | 'title' | 'retime' | 'start' | 'commit' | TaskFault;

const T1 = Date.parse('2030-01-01T08:10:00.000Z');
const T2 = Date.parse('2030-01-01T09:10:00.000Z');
/** A time before both targets: edits and commits happen while the (new) target is ahead. */
const EARLY = T1 - 60_000;

/** The model inputs: a one-shot and a recurring task of Session s1, due at T1. */
export const ONE_SHOT: TaskRow = {
  sessionId: 's1',
  status: 'active',
  record: { id: 'model', kind: 'after', title: 'A', prompt: 'p', scheduledAt: formatInstant(T1), afterSeconds: 600 },
};
export const RECURRING: TaskRow = {
  sessionId: 's1',
  status: 'active',
  record: { id: 'model', kind: 'every', title: 'A', prompt: 'p', scheduledAt: formatInstant(T1), everySeconds: 600 },
};

/** A model event tagged with the step it stands for (the machine ignores the tag). */
const tagged = (step: TaskStep, event: TaskEvent): TaskEvent => {
  const out: TaskEvent & { readonly step: TaskStep } = { ...event, step };
  return out;
};

/** The step a model event stands for. */
export const stepOf = (event: { type: string }): TaskStep | undefined => (event as { step?: TaskStep }).step;

const withRecord = (row: TaskRow, changes: Partial<TaskRow['record']>): TaskRow => ({
  ...row,
  record: { ...row.record, ...changes } as TaskRow['record'],
});

function candidates(snapshot: Snap): TaskEvent[] {
  const row = snapshot.context;
  const target = instantMs(row.record.scheduledAt);
  const other = formatInstant(target === T1 ? T2 : T1);
  const titled = withRecord(row, { title: row.record.title === 'A' ? 'B' : 'A' });
  const retimed = withRecord(row, { scheduledAt: other });
  const recurring = row.record.kind !== 'after';
  const committed: TaskRow = recurring ? retimed : { ...row, status: 'inactive' };
  return [
    tagged('tick', { type: 'clock.tick', now: target }),
    tagged('start', { type: 'delivery.start' }),
    tagged('title', { type: 'task.updated', row: titled, now: snapshot.matches('scheduled') ? EARLY : target }),
    tagged('retime', { type: 'task.updated', row: retimed, now: EARLY }),
    tagged('commit', { type: 'delivery.committed', row: committed, now: EARLY }),
    ...TASK_FAULTS.map((fault) => tagged(fault, { type: 'delivery.failed', now: target })),
  ];
}

/**
 * The events offered in a state: those that take a transition, minus what a settled service
 * cannot do — a timing change during an attempt (the commit then keeps the edit, which the
 * machine's context cannot tell from an ordinary advance; the user model covers it), and a
 * tick that is not due (the service hands a task to its Session only once it is due).
 */
export function offeredTaskEvents(snapshot: Snap): TaskEvent[] {
  return candidates(snapshot).filter((event) => snapshot.can(event) && !(stepOf(event) === 'retime' && snapshot.matches('delivering')));
}
