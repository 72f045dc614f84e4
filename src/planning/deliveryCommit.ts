// The mailbox slot that records a flushed delivery attempt: one write holding every acknowledged
// task's new row. A task deleted or ended while its message was in flight records nothing (the
// message stays delivered). When the write fails, nothing is recorded: the tasks whose Session
// failed are retried as deliveries, while each reminder the Session acknowledged goes back to its
// task actor as a receipt waiting for its write (in its failure), and only that write is retried,
// so the Session does not see them again. A retried write carries the receipts as the actors'
// wakes reported them; it records each on the row as it is then — an edit made meanwhile is kept,
// as if it had landed while the delivery was in flight — and advances the task past the `now` of
// the attempt that delivered it. A run of delivery commits sharing one slot is
// merged into one plan with one write (`mergeDeliveryPlans`).
import type { ActorEffect, DeliveryOutcome, DomainChange, FailureCause, TaskFailures, WaitingReceipt } from '../../machines/events.ts';
import { applyDelivery } from '../domain/tasks/deliveryRow.ts';
import type { RetentionLimits } from '../domain/tasks/retention.ts';
import type { RetryPolicy } from '../domain/tasks/retry.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import { type PlanError, type ReadyPlan, read, resolved, type Unwritten, unwritten, write } from './slotPlan.ts';
import type { TaskRows } from './taskRows.ts';

/** True when the row's saved history (or latest receipt) already names this message id. */
const namesMessage = (row: TaskRow, messageId: string): boolean =>
  row.lastDelivery?.messageId === messageId || (row.deliveryHistory?.records.some((r) => r.messageId === messageId) ?? false);

/** What a delivery-commit slot needs besides its outcome. */
export interface DeliveryCommitContext {
  readonly table: TaskRows;
  readonly retention: RetentionLimits;
  /** True while the Session's actor has a delivery attempt in flight. */
  readonly isAttempting: (sessionId: string) => boolean;
  /** How failed deliveries are retried (false: parked). */
  readonly retry: RetryPolicy | false;
  /** When the slot runs. */
  readonly now: number;
}

const UNEXPLAINED_FAILURE = 'The delivery attempt failed without a cause.';
const UNRECORDABLE = 'The Session answered with a message id the schedule cannot record.';

/** The message of a failed write. */
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Why each task of an outcome was not recorded: the attempt's causes (an id without one fails
 * unexplained), and the reminders appended under a message id that cannot be recorded, parked.
 */
function outcomeFailures(outcome: DeliveryOutcome, reused: readonly string[]): FailureCause[] {
  if (outcome.failedIds.length === 0 && outcome.unrecordableIds.length === 0 && reused.length === 0 && !outcome.causes?.length) return [];
  const causes: FailureCause[] = [...(outcome.causes ?? [])];
  const explained = new Set(causes.flatMap((cause) => cause.ids));
  const unexplained = outcome.failedIds.filter((id) => !explained.has(id));
  if (unexplained.length > 0) causes.push({ ids: unexplained, stage: 'resolve', message: UNEXPLAINED_FAILURE });
  const parked = [...outcome.unrecordableIds, ...reused];
  if (parked.length > 0) causes.push({ ids: parked, stage: 'followup', message: UNRECORDABLE, park: true });
  return causes;
}

/** The ids of the rows a commit ends. */
const endedIds = (puts: readonly TaskRow[]): string[] => puts.filter((row) => row.status === 'inactive').map((row) => row.record.id);

/** The failures as the task actors take them: each with the backoff, or parked. */
export function taskFailures(causes: readonly FailureCause[], retry: RetryPolicy | false): TaskFailures[] {
  return causes.map((cause) => ({
    ids: cause.ids,
    failure: { stage: cause.stage, message: cause.message, retry: cause.park === true ? false : retry },
  }));
}

/**
 * A failed write of acknowledged reminders as their task actors take it: each task its own
 * failure, carrying its receipt (the actor keeps it until a write records it).
 */
export function receiptFailures(receipts: readonly WaitingReceipt[], cause: FailureCause, retry: RetryPolicy | false): TaskFailures[] {
  return receipts.map((receipt) => ({
    ids: [receipt.reminder.id],
    failure: { stage: cause.stage, message: cause.message, retry, receipt },
  }));
}

export function planDeliveryCommit(ctx: DeliveryCommitContext, sessionId: string, outcome: DeliveryOutcome): ReadyPlan<null> {
  if (outcome.retried !== undefined) return planRetriedCommit(ctx, sessionId, outcome.retried);
  const { table, retention } = ctx;
  const puts: TaskRow[] = [];
  const commits: WaitingReceipt[] = [];
  const reused: string[] = [];
  const errors: PlanError[] = [];
  for (const reminder of outcome.delivered) {
    const row = table.getInSession(sessionId, reminder.id);
    if (row === undefined || row.status !== 'active') continue;
    if (namesMessage(row, reminder.messageId)) {
      // A task's receipts name distinct messages; a Host answering with one of its earlier ids
      // cannot be recorded. Parked, not retried on a timer: the answer would be the same.
      reused.push(reminder.id);
      errors.push({
        message: `followup() answered with message id ${reminder.messageId}, which already names an earlier delivery of task ${reminder.id}; the reminder cannot be recorded and the task waits for another change or a restart.`,
        data: { sessionId, id: reminder.id, messageId: reminder.messageId },
      });
      continue;
    }
    puts.push(applyDelivery(row, reminder, outcome.now, retention));
    commits.push({ sessionId, reminder, attemptNow: outcome.now });
  }
  // Every put is of an active row of this Session, so the Session retires when as many of them end as it has active rows.
  const retire = table.activeCount(sessionId) === new Set(endedIds(puts)).size;
  const settle = (committed: readonly TaskRow[], failures: readonly TaskFailures[], retireSession: boolean): ActorEffect => ({
    type: 'delivery.settle',
    sessionId,
    committed,
    failures,
    now: outcome.now,
    retire: retireSession,
  });
  // Tasks appended under a message id storage cannot keep go back to their actors like failures, and are parked.
  const failures = outcomeFailures(outcome, reused);
  const taken = taskFailures(failures, ctx.retry);
  if (puts.length === 0) return read(resolved(null), { effects: [settle([], taken, retire)], failures, errors });
  return write(
    {
      reply: resolved(null),
      batch: { puts, deletes: [] },
      effects: [settle(puts, taken, retire)],
      changes: [{ sessionId, ids: puts.map((row) => row.record.id) }],
      // The attempt ends for every task; the acknowledged ones hold their receipts (not
      // redelivered) and wait for the write's retry.
      onWriteFailure: (error) => {
        const written: FailureCause = { ids: commits.map((c) => c.reminder.id), stage: 'commit', message: messageOf(error), error };
        const effect = settle([], [...receiptFailures(commits, written, ctx.retry), ...taken], false);
        return unwritten(resolved(null), { effects: [effect], failures: [written, ...failures], commits });
      },
    },
    { failures, errors, commits },
  );
}

/**
 * A retried write of waiting receipts, as their task actors reported them. No attempt is in flight
 * for them (their actors settled when the first write failed, and wait for this retry): each
 * committed row reaches its actor as its committed delivery, and an ended one is then removed (its
 * Session retired when nothing else is active). A receipt its row records already (the first write
 * landed after all) reaches its actor the same way, with the row as it is.
 */
function planRetriedCommit(ctx: DeliveryCommitContext, sessionId: string, receipts: readonly WaitingReceipt[]): ReadyPlan<null> {
  const { table, retention } = ctx;
  const puts: TaskRow[] = [];
  const commits: WaitingReceipt[] = [];
  const dropped: string[] = [];
  const recorded: ActorEffect[] = [];
  for (const receipt of receipts) {
    const { reminder } = receipt;
    const row = table.getInSession(sessionId, reminder.id);
    if (row === undefined || row.status !== 'active') {
      dropped.push(reminder.id);
      continue;
    }
    if (namesMessage(row, reminder.messageId)) {
      recorded.push({ type: 'delivery.committed', row, now: ctx.now });
      continue;
    }
    puts.push(applyDelivery(row, reminder, receipt.attemptNow, retention));
    commits.push(receipt);
  }
  if (puts.length === 0) return read(resolved(null), { effects: recorded, dropped });
  const ended = endedIds(puts);
  // Every actor takes its committed delivery (an ended one reaches `inactive`), then the ended ones are removed.
  const effects: ActorEffect[] = [...recorded, ...puts.map((row) => ({ type: 'delivery.committed', row, now: ctx.now }) as const)];
  if (ended.length > 0) {
    // Each ended put was an active row of this Session.
    const remaining = table.activeCount(sessionId) - new Set(ended).size;
    effects.push({ type: 'tasks.remove', sessionId, ids: ended, retire: remaining === 0 && !ctx.isAttempting(sessionId) });
  }
  return write(
    {
      reply: resolved(null),
      batch: { puts, deletes: [] },
      effects,
      changes: [{ sessionId, ids: puts.map((row) => row.record.id) }],
      // The tasks wait for the next retry of the write (an already recorded receipt is told as planned).
      onWriteFailure: (error) => {
        const failure: FailureCause = { ids: commits.map((c) => c.reminder.id), stage: 'commit', message: messageOf(error), error };
        const effect: ActorEffect = {
          type: 'receipts.failed',
          sessionId,
          failures: receiptFailures(commits, failure, ctx.retry),
          now: ctx.now,
        };
        return unwritten(resolved(null), { effects: [...recorded, effect], failures: [failure], commits });
      },
    },
    { commits, dropped },
  );
}

/**
 * One plan for a run of delivery commits (a slot holding several): their rows in one batch, their
 * effects, failures and notes in order.
 */
export function mergeDeliveryPlans(plans: readonly ReadyPlan[]): ReadyPlan {
  const puts: TaskRow[] = [];
  const changes: DomainChange[] = [];
  const commits: WaitingReceipt[] = [];
  for (const p of plans) {
    if (p.kind === 'read') continue;
    puts.push(...p.batch.puts);
    changes.push(...p.changes);
    commits.push(...p.commits);
  }
  const settles = {
    effects: plans.flatMap((p) => p.effects),
    failures: plans.flatMap((p) => p.failures),
    errors: plans.flatMap((p) => p.errors),
    dropped: plans.flatMap((p) => p.dropped),
  };
  if (puts.length === 0) return read(resolved(null), settles);
  // A plan that writes nothing settles as it planned, whatever becomes of the others' write.
  const onWriteFailure = (error: unknown): Unwritten => {
    const outcomes = plans.map((p) =>
      p.kind === 'write' ? p.onWriteFailure(error) : unwritten(p.reply, { effects: p.effects, failures: p.failures }),
    );
    return unwritten(resolved(null), {
      effects: outcomes.flatMap((f) => f.effects),
      failures: outcomes.flatMap((f) => f.failures),
      commits: outcomes.flatMap((f) => f.commits),
    });
  };
  return write(
    { reply: resolved(null), batch: { puts, deletes: [] }, effects: settles.effects, changes, onWriteFailure },
    { ...settles, commits },
  );
}
