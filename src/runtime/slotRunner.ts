// Runs one mailbox slot: plans it at the slot's `now`, checks cancellation after queueing and
// again just before persistence, writes the batch and awaits it inside the slot, and only then
// updates the in-memory table and the timer. A refused request answers with its ScheduleError's
// code; an unexpected error answers `internal_error` (and is logged with its cause); a failed write
// answers `persistence_uncertain` and changes nothing in memory.
import type { CommandOutcome, MailboxCommand, Operation } from '../../machines/events.ts';
import { INTERNAL_ERROR_MESSAGE, ScheduleError } from '../domain/errors.ts';
import type { Clock, CommitBatch, Logger, ScheduleStorage } from '../ports.ts';
import { planRemote, planSessionActivity, planSessionStop } from '../remote/handlers.ts';
import { planToolCall } from '../tools/handlers.ts';
import type { ResolvedConfig } from './config.ts';
import { planDeliveryCommit } from './deliveryCommit.ts';
import type { SlotContext } from './mutations.ts';
import type { Scheduler } from './scheduler.ts';
import { rejected, resolved, type SlotPlan, type SlotReply } from './slotPlan.ts';
import type { TaskTable } from './taskTable.ts';

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

const signalOf = (op: Operation): AbortSignal | undefined => (op.kind === 'tool' ? op.signal : undefined);

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');

/** The answer to a refused or failed request, shaped for the kind of call. */
function failureReply(deps: SlotRunnerDeps, op: Operation, error: unknown): SlotReply {
  if (!(error instanceof ScheduleError)) {
    deps.logger.error('A schedule operation failed unexpectedly.', { operation: op.kind, cause: error });
    error = new ScheduleError('internal_error', INTERNAL_ERROR_MESSAGE, { cause: error });
  }
  const scheduleError = error as ScheduleError;
  if (op.kind === 'archive.activity' || op.kind === 'archive.stop' || op.kind === 'delivery.commit') return rejected(scheduleError);
  if (op.kind === 'remote' && (op.method === 'catalog' || op.method === 'list')) return rejected(scheduleError);
  return resolved(scheduleError.toFailure());
}

function plan(deps: SlotRunnerDeps, op: Operation, now: number): SlotPlan {
  const ctx: SlotContext = { table: deps.table, now, attempting: deps.attempting };
  switch (op.kind) {
    case 'tool':
      return planToolCall(ctx, op.sessionId, op.name, op.args);
    case 'remote':
      return planRemote(ctx, op.method, op.request, deps.config.retention);
    case 'archive.activity':
      return planSessionActivity(ctx, op.sessionId);
    case 'archive.stop':
      return planSessionStop(ctx, op.sessionId);
    case 'delivery.commit':
      return planDeliveryCommit(deps.table, op.sessionId, op.outcome, deps.config.retention);
  }
}

/** Keeps the timer's queue in step with a committed batch. */
function track(deps: SlotRunnerDeps, batch: CommitBatch): void {
  for (const id of batch.deletes) deps.scheduler.untrack(id);
  for (const row of batch.puts) {
    if (row.status === 'active') deps.scheduler.track(row);
    else deps.scheduler.untrack(row.record.id);
  }
}

const isCallMutation = (op: Operation): boolean => op.kind !== 'delivery.commit';

/** Runs one slot to its outcome; never rejects. */
export async function runSlot(deps: SlotRunnerDeps, command: MailboxCommand): Promise<CommandOutcome> {
  const op = command.operation;
  const signal = signalOf(op);
  try {
    if (signal?.aborted) return { reply: rejected(abortReason(signal)), effects: [], changes: [] };
    let slot: SlotPlan;
    try {
      slot = plan(deps, op, deps.clock.now());
    } catch (error) {
      return { reply: failureReply(deps, op, error), effects: [], changes: [] };
    }
    const batch = slot.batch;
    if (batch === undefined) {
      if (slot.failedIds !== undefined && slot.failedIds.length > 0) {
        deps.scheduler.failed(slot.failedIds, deps.clock.now());
        deps.scheduler.rearm();
      }
      return { reply: slot.reply, effects: slot.effects ?? [], changes: [] };
    }
    if (signal?.aborted) return { reply: rejected(abortReason(signal)), effects: [], changes: [] };
    try {
      await deps.storage.commit(batch);
    } catch (error) {
      deps.logger.error('A schedule change could not be saved.', { operation: op.kind, cause: error });
      const failure = slot.onWriteFailure?.(error) ?? { reply: failureReply(deps, op, error), effects: [] };
      if (failure.failedIds !== undefined && failure.failedIds.length > 0) deps.scheduler.failed(failure.failedIds, deps.clock.now());
      deps.scheduler.rearm();
      return { reply: failure.reply, effects: failure.effects, changes: [] };
    }
    deps.table.apply(batch);
    track(deps, batch);
    if (slot.failedIds !== undefined && slot.failedIds.length > 0) deps.scheduler.failed(slot.failedIds, deps.clock.now());
    deps.scheduler.rearm();
    if (isCallMutation(op)) deps.scheduler.kick();
    return { reply: slot.reply, effects: slot.effects ?? [], changes: slot.changes ?? [] };
  } catch (error) {
    return { reply: failureReply(deps, op, error), effects: [], changes: [] };
  } finally {
    if (op.kind === 'delivery.commit') deps.attempting.delete(op.sessionId);
  }
}
