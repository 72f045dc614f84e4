// Runs one mailbox slot: plans it at the slot's `now`, checks cancellation after queueing and
// again just before persistence, writes the batch and awaits it inside the slot, and only then
// updates the in-memory table and the timer. A refused request answers with its ScheduleError's
// code; an unexpected error answers `internal_error` (and is logged with its cause); a failed write
// answers `persistence_uncertain` and changes nothing in memory. A slot holding a run of delivery
// commits plans each and writes them as one batch; so does a run of creates for different Sessions,
// each then answered on its own. When a delivery commit's write fails, the
// receipts the Session acknowledged are handed to the scheduler as pending: their write is retried,
// not their delivery; any successful write retries them at once. A failure write (the failure
// statuses task actors took, stored with their rows) leaves the timer's queue as the actors set it.
import type { ActorEffect, DomainChange, FailureCause, MailboxCommand, Operation } from '../../machines/events.ts';
import { isPlainObject } from '../domain/argShape.ts';
import { INTERNAL_ERROR_MESSAGE, ScheduleError } from '../domain/errors.ts';
import { checkCallId, isIdempotentOperation } from '../domain/rememberedCalls.ts';
import type { DeliveryFailure, TaskRow } from '../domain/types.ts';
import { planBulkBatch } from '../planning/bulkPlans.ts';
import { type CreateRun, mergeCreatePlans } from '../planning/createRun.ts';
import { planDeliveryCommit, taskFailures } from '../planning/deliveryCommit.ts';
import { planFailureWrite } from '../planning/failureWrite.ts';
import { planIdempotent } from '../planning/idempotentPlans.ts';
import type { SlotContext } from '../planning/mutations.ts';
import type { PendingCommit } from '../planning/pendingReceipts.ts';
import { planRemote, planSessionActivity, planSessionStop } from '../planning/remotePlans.ts';
import { rejected, resolved, type SlotPlan, type SlotReply } from '../planning/slotPlan.ts';
import { planToolCall } from '../planning/toolPlans.ts';
import type { Clock, CommitBatch, Logger, ScheduleStorage } from '../ports.ts';
import type { ResolvedConfig } from './config.ts';
import type { DeliverySummary } from './deliverySummary.ts';
import type { InDoubtCalls } from './inDoubtCalls.ts';
import type { MetricsReporter } from './metricsReporter.ts';
import type { Scheduler } from './scheduler.ts';
import type { TaskTable } from './taskTable.ts';
import { currentTzdata } from './tzdataVersion.ts';

/**
 * What one slot did: how the call settles, the effects on the actors, the committed changes, and
 * the failures its effects hand to task actors (for the timer, once the actors have taken them).
 */
export interface SlotOutcome {
  readonly reply: SlotReply;
  /** One answer per command of a slot that answers several calls (a run of creates); `reply` is then unused. */
  readonly replies?: readonly SlotReply[];
  readonly effects: readonly ActorEffect[];
  readonly changes: readonly DomainChange[];
  readonly failures: readonly FailureCause[];
  /** The call goes on in another slot, queued at the back of the mailbox (a bulk call's next batch). */
  readonly continuation?: Operation;
}

/** What the slot runner reads from the actors: nothing about them is kept anywhere else. */
export interface ActorReader {
  /** True while the Session's actor has a delivery attempt in flight. */
  isAttempting(sessionId: string): boolean;
  /** The failure status a task's actor holds after a failed attempt. */
  failureOf(id: string): DeliveryFailure | undefined;
}

export interface SlotRunnerDeps {
  readonly table: TaskTable;
  readonly storage: ScheduleStorage;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: ResolvedConfig;
  readonly scheduler: Scheduler;
  readonly actors: ActorReader;
  /** Idempotent calls whose write came back uncertain. */
  readonly inDoubt: InDoubtCalls;
  /** Counts each committed delivery for the periodic info summary (the delivery itself is logged at debug). */
  readonly summary: DeliverySummary;
  /** Hears each storage write's duration and each committed delivery's lateness. */
  readonly metrics: MetricsReporter;
}

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');

/** An error that is not a ScheduleError, logged and answered as `internal_error`. */
function unexpected(deps: SlotRunnerDeps, op: Operation, error: unknown): ScheduleError {
  deps.logger.error('A schedule operation failed unexpectedly.', { operation: op.kind, cause: error });
  return new ScheduleError('internal_error', INTERNAL_ERROR_MESSAGE, { cause: error });
}

/** The answer to a refused or failed request, shaped for the kind of call. */
function failureReply(deps: SlotRunnerDeps, op: Operation, error: unknown): SlotReply {
  const scheduleError = error instanceof ScheduleError ? error : unexpected(deps, op, error);
  if (op.kind === 'archive.activity' || op.kind === 'archive.stop' || op.kind === 'delivery.commit') return rejected(scheduleError);
  return resolved(scheduleError.toFailure());
}

/**
 * The Session and `callId` that make a call idempotent (SPEC §15): a mutating tool's, or a mutating
 * remote method's with a `sessionId`; undefined for any other call, whose `callId` is ignored.
 *
 * @throws ScheduleError `invalid_selector` for a `callId` that is not a string of 1 to 256 characters.
 */
function idempotencyOf(op: Operation): { sessionId: string; callId: string; operation: string; args: unknown } | undefined {
  if (op.kind !== 'tool' && op.kind !== 'remote') return undefined;
  // A bulk call remembers its answer with its last batch (bulkPlans.ts).
  if (op.callId === undefined || (op.kind === 'remote' && op.method === 'bulk')) return undefined;
  const callId = checkCallId(op.callId);
  if (op.kind === 'tool') return { sessionId: op.sessionId, callId, operation: op.name, args: op.args };
  const sessionId = isPlainObject(op.request) ? op.request.sessionId : undefined;
  return typeof sessionId === 'string' ? { sessionId, callId, operation: `remote.${op.method}`, args: op.request } : undefined;
}

function plan(deps: SlotRunnerDeps, op: Operation, now: number): SlotPlan {
  const { actors } = deps;
  const isAttempting = (sessionId: string): boolean => actors.isAttempting(sessionId);
  const ctx: SlotContext = { table: deps.table, now, isAttempting, failureOf: (id) => actors.failureOf(id) };
  const idempotent = idempotencyOf(op);
  if (idempotent !== undefined && isIdempotentOperation(idempotent.operation)) {
    const { operation } = idempotent;
    const inDoubt = deps.inDoubt.get(idempotent, deps.table);
    return planIdempotent(ctx, { ...idempotent, operation }, () => planOperation(deps, ctx, op, now), inDoubt);
  }
  return planOperation(deps, ctx, op, now);
}

function planOperation(deps: SlotRunnerDeps, ctx: SlotContext, op: Operation, now: number): SlotPlan {
  switch (op.kind) {
    case 'tool':
      return planToolCall(ctx, op.sessionId, op.name, op.args);
    case 'remote':
      return planRemote(ctx, op.method, op.request, { retention: deps.config.retention, tzdata: currentTzdata() }, op.callId);
    case 'bulk.batch':
      return planBulkBatch(ctx, op.progress);
    case 'archive.activity':
      return planSessionActivity(ctx, op.sessionId);
    case 'archive.stop':
      return planSessionStop(ctx, op.sessionId);
    case 'failure.record':
      return planFailureWrite(ctx, op.ids);
    case 'delivery.commit':
      return planDeliveryCommit(
        {
          table: deps.table,
          retention: deps.config.retention,
          pending: deps.scheduler.pendingCommits,
          isAttempting: ctx.isAttempting,
          retry: deps.config.retry,
          now,
        },
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
  const failures: FailureCause[] = [];
  const errors: Array<{ message: string; data: unknown }> = [];
  const commits: PendingCommit[] = [];
  const dropped: string[] = [];
  for (const p of plans) {
    errors.push(...(p.errors ?? []));
    if (p.batch !== undefined) puts.push(...p.batch.puts);
    effects.push(...(p.effects ?? []));
    changes.push(...(p.changes ?? []));
    failures.push(...(p.failures ?? []));
    commits.push(...(p.commits ?? []));
    dropped.push(...(p.dropped ?? []));
  }
  const merged: SlotPlan = { reply: resolved(null), effects, changes, failures, errors, commits, dropped };
  if (puts.length === 0) return merged;
  return {
    ...merged,
    batch: { puts, deletes: [] },
    onWriteFailure: (error) => {
      const outcomes = plans.map(
        (p) => p.onWriteFailure?.(error) ?? { reply: resolved(null), effects: p.effects ?? [], failures: p.failures ?? [] },
      );
      return {
        reply: resolved(null),
        effects: outcomes.flatMap((f) => f.effects),
        failures: outcomes.flatMap((f) => f.failures ?? []),
        commits: outcomes.flatMap((f) => f.commits ?? []),
      };
    },
  };
}

/**
 * Settles every delivery attempt among `commands` as failed (nothing recorded); retried writes of
 * pending receipts go back to waiting.
 */
function failedSettles(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): { effects: ActorEffect[]; failures: FailureCause[] } {
  const effects: ActorEffect[] = [];
  const failures: FailureCause[] = [];
  const pending = deps.scheduler.pendingCommits;
  const now = deps.clock.now();
  for (const { operation: op } of commands) {
    if (op.kind !== 'delivery.commit') continue;
    const retried = pending.isRetry(op.outcome);
    const ids = retried
      ? op.outcome.delivered.map((d) => d.id)
      : [...op.outcome.delivered.map((d) => d.id), ...op.outcome.failedIds, ...op.outcome.unrecordableIds];
    const cause: FailureCause = { ids, stage: retried ? 'commit' : 'resolve', message: INTERNAL_ERROR_MESSAGE };
    const taken = taskFailures([cause], deps.config.retry);
    failures.push(cause);
    if (retried) {
      deps.scheduler.commitFailed(op.outcome.delivered.map((d) => pending.get(d.id)).filter((c) => c !== undefined));
      effects.push({ type: 'receipts.failed', sessionId: op.sessionId, failures: taken, now });
    } else
      effects.push({
        type: 'delivery.settle',
        sessionId: op.sessionId,
        committed: [],
        failures: taken,
        now: op.outcome.now,
        retire: false,
      });
  }
  return { effects, failures };
}

/** Keeps the timer's queue in step with a committed batch. */
function track(deps: SlotRunnerDeps, batch: CommitBatch): void {
  for (const id of batch.deletes) deps.scheduler.untrack(id);
  for (const row of batch.puts) {
    if (row.status === 'active') deps.scheduler.track(row);
    else deps.scheduler.untrack(row.record.id);
  }
}

/**
 * Writes a plan's batch (if any) and settles the slot. `noteInDoubt` keeps the idempotent calls of
 * a write that came back uncertain (by default with this plan, which a retry sends again).
 */
async function execute(
  deps: SlotRunnerDeps,
  op: Operation,
  slot: SlotPlan,
  signal: AbortSignal | undefined,
  noteInDoubt: (written: CommitBatch) => void = (written) => deps.inDoubt.note(slot, written, deps.table),
): Promise<SlotOutcome> {
  for (const error of slot.errors ?? []) deps.logger.error(error.message, error.data);
  const batch = slot.batch;
  const continuation = slot.continuation === undefined ? {} : { continuation: slot.continuation };
  if (batch === undefined) {
    deps.scheduler.commitsSettled(slot.dropped ?? []);
    if (slot.retryNow !== undefined) deps.scheduler.retryNow(slot.retryNow);
    deps.scheduler.rearm();
    return { reply: slot.reply, effects: slot.effects ?? [], changes: [], failures: slot.failures ?? [], ...continuation };
  }
  if (signal?.aborted) return { reply: rejected(abortReason(signal)), effects: [], changes: [], failures: [] };
  // The first write after an open with other time-zone data records the version in use.
  const tzdata = currentTzdata();
  const written = deps.table.tzdata === tzdata ? batch : { ...batch, tzdata };
  // The write's own duration, on the process's monotonic clock (the injected clock may be a test's).
  const startedAt = performance.now();
  try {
    await deps.storage.commit(written);
    deps.metrics.storageCommitted((performance.now() - startedAt) / 1000, true);
  } catch (error) {
    deps.metrics.storageCommitted((performance.now() - startedAt) / 1000, false);
    deps.logger.error('A schedule change could not be saved.', { operation: op.kind, cause: error });
    if (error instanceof ScheduleError && error.code === 'persistence_uncertain') noteInDoubt(written);
    const failure = slot.onWriteFailure?.(error) ?? { reply: failureReply(deps, op, error), effects: [] };
    deps.scheduler.commitsSettled(slot.dropped ?? []);
    deps.scheduler.commitFailed(failure.commits ?? []);
    deps.scheduler.rearm();
    const next = 'continuation' in failure && failure.continuation !== undefined ? { continuation: failure.continuation } : {};
    return { reply: failure.reply, effects: failure.effects, changes: [], failures: failure.failures ?? [], ...next };
  }
  deps.table.apply(written);
  deps.inDoubt.settled(written);
  for (const { sessionId, reminder: r } of slot.commits ?? []) {
    deps.logger.debug?.('Reminder delivered.', {
      sessionId,
      taskId: r.id,
      occurrence: r.occurrence,
      deliveredAt: r.deliveredAt,
      messageId: r.messageId,
    });
    deps.summary.delivered(r.occurrence, r.deliveredAt);
    // A clock set backwards between target and delivery is not a delivery ahead of time.
    deps.metrics.delivered(Math.max(0, r.deliveredAt - r.occurrence) / 1000);
  }
  const deliveredIds = (slot.commits ?? []).map((c) => c.reminder.id);
  deps.scheduler.commitsSettled([...deliveredIds, ...(slot.dropped ?? [])]);
  if (slot.keepsTiming === true) {
    deps.scheduler.recover();
    return { reply: slot.reply, effects: slot.effects ?? [], changes: [], failures: [] };
  }
  track(deps, batch);
  // Tasks the batch did not write but asked to try again (a bulk run now of tasks whose request waits).
  if (slot.retryNow !== undefined) deps.scheduler.retryNow(slot.retryNow);
  deps.scheduler.rearm();
  if (op.kind !== 'delivery.commit') deps.scheduler.kick();
  deps.scheduler.recover();
  return { reply: slot.reply, effects: slot.effects ?? [], changes: slot.changes ?? [], failures: slot.failures ?? [], ...continuation };
}

/**
 * Before a create, when storage hands out task numbers and none is left: takes a block of them
 * (numbers no write uses are never used, as with the local counter).
 */
async function ensureTaskNumber(deps: SlotRunnerDeps, op: Operation): Promise<void> {
  const allocate = deps.storage.allocateTaskNumbers;
  if (allocate === undefined || deps.table.allocatedLeft > 0) return;
  if (op.kind !== 'tool' || op.name !== 'schedule_create') return;
  deps.table.supplyTaskNumbers(await allocate.call(deps.storage, deps.table.nextAllocation));
}

/** Runs one command to its outcome; never rejects. */
async function runCommand(deps: SlotRunnerDeps, command: MailboxCommand): Promise<SlotOutcome> {
  const op = command.operation;
  const signal = op.kind === 'tool' ? op.signal : undefined;
  if (signal?.aborted) return { reply: rejected(abortReason(signal)), effects: [], changes: [], failures: [] };
  let slot: SlotPlan;
  try {
    await ensureTaskNumber(deps, op);
    slot = plan(deps, op, deps.clock.now());
  } catch (error) {
    return { reply: failureReply(deps, op, error), effects: [], changes: [], failures: [] };
  }
  return execute(deps, op, slot, signal);
}

/** A create of a run whose plan writes: its place in the slot, its plan and its caller's signal. */
interface PlannedCreate {
  readonly index: number;
  readonly plan: SlotPlan;
  readonly signal: AbortSignal | undefined;
}

/**
 * Runs a run of creates for different Sessions: each is planned in turn as it would be alone (its
 * own task number, its own refusal, its own remembered call), the plans that write are written as
 * one batch, and each call is answered on its own. A call aborted before the write is answered
 * with its abort and left out of the batch; a failed write answers every create of the batch as
 * its plan says (`persistence_uncertain`) and changes nothing in memory.
 */
async function runCreates(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): Promise<SlotOutcome> {
  const replies: SlotReply[] = [];
  const planned: PlannedCreate[] = [];
  for (const [index, { operation: op }] of commands.entries()) {
    const signal = op.kind === 'tool' ? op.signal : undefined;
    if (signal?.aborted) {
      replies[index] = rejected(abortReason(signal));
      continue;
    }
    try {
      await ensureTaskNumber(deps, op);
      const slot = plan(deps, op, deps.clock.now());
      for (const error of slot.errors ?? []) deps.logger.error(error.message, error.data);
      if (slot.batch === undefined) replies[index] = slot.reply;
      else planned.push({ index, plan: slot, signal });
    } catch (error) {
      replies[index] = failureReply(deps, op, error);
    }
  }
  // Cancellation is checked again just before the write, as for a call alone.
  const writing = planned.filter(({ index, signal }) => {
    if (signal?.aborted !== true) return true;
    replies[index] = rejected(abortReason(signal));
    return false;
  });
  const first = commands[writing[0]?.index ?? 0];
  if (first === undefined || writing.length === 0) {
    deps.scheduler.rearm();
    return { reply: resolved(null), replies, effects: [], changes: [], failures: [] };
  }
  const run = mergeCreatePlans(writing.map((w) => w.plan));
  let failed: ReturnType<CreateRun['failed']> | undefined;
  const merged: SlotPlan = {
    reply: resolved(null),
    batch: run.batch,
    effects: run.effects,
    changes: run.changes,
    onWriteFailure: (error) => {
      failed = run.failed(error);
      return { reply: resolved(null), effects: failed.effects };
    },
  };
  // Each in-doubt call is kept with its own plan: a retry sends that create's rows again, not the run's.
  const noteInDoubt = (): void => {
    for (const { plan: p } of writing) if (p.batch !== undefined) deps.inDoubt.note(p, p.batch, deps.table);
  };
  const outcome = await execute(deps, first.operation, merged, undefined, noteInDoubt);
  const answers = failed?.replies ?? run.replies;
  writing.forEach(({ index }, i) => {
    replies[index] = answers[i] ?? resolved(null);
  });
  return { ...outcome, replies };
}

const isCreate = (op: Operation): boolean => op.kind === 'tool' && op.name === 'schedule_create';

/** Runs the commands of one slot (one call, a run of delivery commits or a run of creates); never rejects. */
export async function runSlot(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): Promise<SlotOutcome> {
  const first = commands[0];
  try {
    if (first === undefined) return { reply: resolved(null), effects: [], changes: [], failures: [] };
    if (commands.length === 1) return await runCommand(deps, first);
    if (isCreate(first.operation)) return await runCreates(deps, commands);
    const now = deps.clock.now();
    const plans = commands.map((c) => plan(deps, c.operation, now));
    return await execute(deps, first.operation, mergeDeliveryPlans(plans), undefined);
  } catch (error) {
    // Unreachable unless planning has a bug; the Sessions must still leave their attempt.
    deps.logger.error('A schedule operation failed unexpectedly.', { cause: error });
    const reply = resolved({ code: 'internal_error', message: INTERNAL_ERROR_MESSAGE });
    return { reply, replies: commands.map(() => reply), changes: [], ...failedSettles(deps, commands) };
  }
}
