// Runs one mailbox slot: plans it at the slot's `now`, checks cancellation after queueing and
// again just before persistence, writes the batch and awaits it inside the slot, and only then
// updates the in-memory table and the timer. A refused request answers with its ScheduleError's
// code; an unexpected error answers `internal_error` (and is logged with its cause); a failed write
// answers `persistence_uncertain` and changes nothing in memory. A slot holding a run of delivery
// commits plans each and writes them as one batch. When a delivery commit's write fails, the
// receipts the Session acknowledged are handed to the scheduler as pending: their write is retried,
// not their delivery; any successful write retries them at once.
import type { ActorEffect, DomainChange, FailureCause, MailboxCommand, Operation } from '../../machines/events.ts';
import { INTERNAL_ERROR_MESSAGE, ScheduleError } from '../domain/errors.ts';
import type { TaskRow } from '../domain/types.ts';
import { planDeliveryCommit } from '../planning/deliveryCommit.ts';
import type { SlotContext } from '../planning/mutations.ts';
import type { PendingCommit } from '../planning/pendingReceipts.ts';
import { planRemote, planSessionActivity, planSessionStop } from '../planning/remotePlans.ts';
import { rejected, resolved, type SlotPlan, type SlotReply } from '../planning/slotPlan.ts';
import { planToolCall } from '../planning/toolPlans.ts';
import type { Clock, CommitBatch, Logger, ScheduleStorage } from '../ports.ts';
import type { ResolvedConfig } from './config.ts';
import type { Scheduler } from './scheduler.ts';
import type { TaskTable } from './taskTable.ts';
import { currentTzdata } from './tzdataVersion.ts';

/** What one slot did: how the call settles, the effects on the actors, the committed changes. */
export interface SlotOutcome {
  readonly reply: SlotReply;
  readonly effects: readonly ActorEffect[];
  readonly changes: readonly DomainChange[];
}

export interface SlotRunnerDeps {
  readonly table: TaskTable;
  readonly storage: ScheduleStorage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: ResolvedConfig;
  readonly scheduler: Scheduler;
  /** Sessions with a delivery attempt in flight. */
  readonly attempting: Set<string>;
}

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');

/** The answer to a refused or failed request, shaped for the kind of call. */
function failureReply(deps: SlotRunnerDeps, op: Operation, error: unknown): SlotReply {
  if (!(error instanceof ScheduleError)) {
    deps.logger.error('A schedule operation failed unexpectedly.', { operation: op.kind, cause: error });
    error = new ScheduleError('internal_error', INTERNAL_ERROR_MESSAGE, { cause: error });
  }
  const scheduleError = error as ScheduleError;
  if (op.kind === 'archive.activity' || op.kind === 'archive.stop' || op.kind === 'delivery.commit') return rejected(scheduleError);
  return resolved(scheduleError.toFailure());
}

function plan(deps: SlotRunnerDeps, op: Operation, now: number): SlotPlan {
  const ctx: SlotContext = { table: deps.table, now, attempting: deps.attempting, failureOf: (id) => deps.scheduler.failureOf(id) };
  switch (op.kind) {
    case 'tool':
      return planToolCall(ctx, op.sessionId, op.name, op.args);
    case 'remote':
      return planRemote(ctx, op.method, op.request, { retention: deps.config.retention, tzdata: currentTzdata() });
    case 'archive.activity':
      return planSessionActivity(ctx, op.sessionId);
    case 'archive.stop':
      return planSessionStop(ctx, op.sessionId);
    case 'delivery.commit':
      return planDeliveryCommit(
        { table: deps.table, retention: deps.config.retention, pending: deps.scheduler.pendingCommits, attempting: deps.attempting, now },
        op.sessionId,
        op.outcome,
      );
  }
}

/** One plan for a run of delivery commits: their rows in one batch, their effects in order. */
function mergeDeliveryPlans(plans: readonly SlotPlan[]): SlotPlan {
  const puts: TaskRow[] = [];
  const effects: ActorEffect[] = [];
  const changes: DomainChange[] = [];
  const failedIds: string[] = [];
  const failureCauses: FailureCause[] = [];
  const parkIds: string[] = [];
  const errors: Array<{ message: string; data: unknown }> = [];
  const commits: PendingCommit[] = [];
  const dropped: string[] = [];
  for (const p of plans) {
    errors.push(...(p.errors ?? []));
    if (p.batch !== undefined) puts.push(...p.batch.puts);
    effects.push(...(p.effects ?? []));
    changes.push(...(p.changes ?? []));
    failedIds.push(...(p.failedIds ?? []));
    failureCauses.push(...(p.failureCauses ?? []));
    parkIds.push(...(p.parkIds ?? []));
    commits.push(...(p.commits ?? []));
    dropped.push(...(p.dropped ?? []));
  }
  const merged: SlotPlan = { reply: resolved(null), effects, changes, failedIds, failureCauses, parkIds, errors, commits, dropped };
  if (puts.length === 0) return merged;
  return {
    ...merged,
    batch: { puts, deletes: [] },
    onWriteFailure: (error) => {
      const failures = plans.map(
        (p) => p.onWriteFailure?.(error) ?? { reply: resolved(null), effects: p.effects ?? [], failedIds: p.failedIds ?? [] },
      );
      return {
        reply: resolved(null),
        effects: failures.flatMap((f) => f.effects),
        failedIds: failures.flatMap((f) => f.failedIds ?? []),
        failureCauses: failures.flatMap((f) => f.failureCauses ?? []),
        parkIds: failures.flatMap((f) => f.parkIds ?? []),
        commits: failures.flatMap((f) => f.commits ?? []),
      };
    },
  };
}

/**
 * Settles every delivery attempt among `commands` as failed (nothing recorded); retried writes of
 * pending receipts go back to waiting.
 */
function failedSettles(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): ActorEffect[] {
  const effects: ActorEffect[] = [];
  const pending = deps.scheduler.pendingCommits;
  for (const { operation: op } of commands) {
    if (op.kind !== 'delivery.commit') continue;
    if (pending.isRetry(op.outcome)) {
      const waiting = op.outcome.delivered.map((d) => pending.get(d.id)).filter((c) => c !== undefined);
      deps.scheduler.commitFailed(waiting, deps.clock.now());
      continue;
    }
    const failedIds = [...op.outcome.delivered.map((d) => d.id), ...op.outcome.failedIds, ...op.outcome.unrecordableIds];
    effects.push({ type: 'settle', sessionId: op.sessionId, committed: [], failedIds, now: op.outcome.now, retire: false });
  }
  return effects;
}

/** Keeps the timer's queue in step with a committed batch. */
function track(deps: SlotRunnerDeps, batch: CommitBatch): void {
  for (const id of batch.deletes) deps.scheduler.untrack(id);
  for (const row of batch.puts) {
    if (row.status === 'active') deps.scheduler.track(row);
    else deps.scheduler.untrack(row.record.id);
  }
}

/** Schedules the retries of failed tasks and parks the ones not to be retried on a timer. */
function retry(deps: SlotRunnerDeps, failure: Pick<SlotPlan, 'failedIds' | 'failureCauses' | 'parkIds'>): void {
  const { failedIds, parkIds } = failure;
  if (failedIds !== undefined && failedIds.length > 0) deps.scheduler.failed(failedIds, deps.clock.now(), failure.failureCauses);
  if (parkIds !== undefined && parkIds.length > 0) deps.scheduler.park(parkIds);
}

/** Writes a plan's batch (if any) and settles the slot. */
async function execute(deps: SlotRunnerDeps, op: Operation, slot: SlotPlan, signal: AbortSignal | undefined): Promise<SlotOutcome> {
  for (const error of slot.errors ?? []) deps.logger.error(error.message, error.data);
  const batch = slot.batch;
  if (batch === undefined) {
    deps.scheduler.commitsSettled(slot.dropped ?? []);
    retry(deps, slot);
    if (slot.retryNow !== undefined) deps.scheduler.retryNow(slot.retryNow);
    deps.scheduler.rearm();
    return { reply: slot.reply, effects: slot.effects ?? [], changes: [] };
  }
  if (signal?.aborted) return { reply: rejected(abortReason(signal)), effects: [], changes: [] };
  // The first write after an open with other time-zone data records the version in use.
  const tzdata = currentTzdata();
  const written = deps.table.tzdata === tzdata ? batch : { ...batch, tzdata };
  try {
    await deps.storage.commit(written);
  } catch (error) {
    deps.logger.error('A schedule change could not be saved.', { operation: op.kind, cause: error });
    const failure = slot.onWriteFailure?.(error) ?? { reply: failureReply(deps, op, error), effects: [] };
    deps.scheduler.commitsSettled(slot.dropped ?? []);
    deps.scheduler.commitFailed(failure.commits ?? [], deps.clock.now(), error);
    retry(deps, failure);
    deps.scheduler.rearm();
    return { reply: failure.reply, effects: failure.effects, changes: [] };
  }
  deps.table.apply(written);
  for (const { sessionId, reminder: r } of slot.commits ?? [])
    deps.logger.info?.('Reminder delivered.', {
      sessionId,
      taskId: r.id,
      occurrence: r.occurrence,
      deliveredAt: r.deliveredAt,
      messageId: r.messageId,
    });
  const deliveredIds = (slot.commits ?? []).map((c) => c.reminder.id);
  deps.scheduler.commitsSettled([...deliveredIds, ...(slot.dropped ?? [])]);
  deps.scheduler.delivered(deliveredIds);
  track(deps, batch);
  retry(deps, slot);
  deps.scheduler.rearm();
  if (op.kind !== 'delivery.commit') deps.scheduler.kick();
  deps.scheduler.recover();
  return { reply: slot.reply, effects: slot.effects ?? [], changes: slot.changes ?? [] };
}

/** Runs one command to its outcome; never rejects. */
async function runCommand(deps: SlotRunnerDeps, command: MailboxCommand): Promise<SlotOutcome> {
  const op = command.operation;
  const signal = op.kind === 'tool' ? op.signal : undefined;
  if (signal?.aborted) return { reply: rejected(abortReason(signal)), effects: [], changes: [] };
  let slot: SlotPlan;
  try {
    slot = plan(deps, op, deps.clock.now());
  } catch (error) {
    return { reply: failureReply(deps, op, error), effects: [], changes: [] };
  }
  return execute(deps, op, slot, signal);
}

/** Runs the commands of one slot (one call, or a run of delivery commits); never rejects. */
export async function runSlot(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): Promise<SlotOutcome> {
  const first = commands[0];
  try {
    if (first === undefined) return { reply: resolved(null), effects: [], changes: [] };
    if (commands.length === 1) return await runCommand(deps, first);
    const now = deps.clock.now();
    const plans = commands.map((c) => plan(deps, c.operation, now));
    return await execute(deps, first.operation, mergeDeliveryPlans(plans), undefined);
  } catch (error) {
    // Unreachable unless planning has a bug; the Sessions must still leave their attempt.
    deps.logger.error('A schedule operation failed unexpectedly.', { cause: error });
    return {
      reply: resolved({ code: 'internal_error', message: INTERNAL_ERROR_MESSAGE }),
      effects: failedSettles(deps, commands),
      changes: [],
    };
  } finally {
    // A retried write of pending receipts ends no attempt: its Session may have one in flight.
    for (const { operation: op } of commands) {
      if (op.kind === 'delivery.commit' && !deps.scheduler.pendingCommits.isRetry(op.outcome)) deps.attempting.delete(op.sessionId);
    }
  }
}
