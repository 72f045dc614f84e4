// Runs one mailbox slot: brings in the rows its calls read when the open left them in storage (a
// failed read answers each call with its error), plans it at the slot's `now` (pure: planning
// reads the table and changes nothing), then executes the plan by its kind — a read settles at once; a create first gets its
// task id, reserved here; a write checks cancellation again just before persistence, writes the
// batch and awaits it inside the slot, and only then updates the in-memory table and the timer. A
// refused request answers with its ScheduleError's code; an unexpected error answers
// `internal_error` (and is logged with its cause); a failed write answers `persistence_uncertain`
// and changes nothing in memory. A slot holding a run of delivery commits plans each and writes
// them as one batch; so does a run of creates for different Sessions, each then answered on its
// own. When a delivery commit's write fails, the receipts the Session acknowledged go back to their
// task actors, which hold them and report them with their wakes: their write is retried, not their
// delivery; any successful write retries them at once. A failure write (the failure statuses task actors took, stored with their
// rows) leaves the timer's queue as the actors set it.
import type {
  ActorEffect,
  CommandOutcome,
  FailureCause,
  MailboxCommand,
  Operation,
  ReplyValue,
  ScheduleReplyBody,
} from '../../machines/events.ts';
import { rejected } from '../../machines/scheduleReply.ts';
import { isPlainObject } from '../domain/args/argShape.ts';
import { type Failure, INTERNAL_ERROR_MESSAGE, ScheduleError } from '../domain/errors.ts';
import { freezeRow } from '../domain/tasks/frozenRows.ts';
import { checkCallId, isIdempotentOperation } from '../domain/tasks/rememberedCalls.ts';
import type { DeliveryFailure } from '../domain/tasks/types.ts';
import { planBulkBatch } from '../planning/bulkPlans.ts';
import { type CreateRun, mergeCreatePlans } from '../planning/createRun.ts';
import { mergeDeliveryPlans, planDeliveryCommit, receiptFailures, taskFailures } from '../planning/deliveryCommit.ts';
import { planFailureWrite } from '../planning/failureWrite.ts';
import { planIdempotent } from '../planning/idempotentPlans.ts';
import type { SlotContext } from '../planning/mutations.ts';
import { rowsNeeded, unreadAnswer } from '../planning/readScope.ts';
import { planRemote, planSessionActivity, planSessionStop } from '../planning/remotePlans.ts';
import {
  type CreatePlan,
  type ReadPlan,
  type ReadyPlan,
  resolved,
  type SlotPlan,
  unwritten,
  type WritePlan,
  write,
} from '../planning/slotPlan.ts';
import { planToolCall } from '../planning/toolPlans.ts';
import type { Clock, CommitBatch, Logger, ScheduleStorage } from '../ports.ts';
import type { ResolvedConfig } from './config.ts';
import type { DeliverySummary } from './deliverySummary.ts';
import type { InDoubtCalls } from './inDoubtCalls.ts';
import type { MetricsReporter } from './metricsReporter.ts';
import type { RestReader } from './restReader.ts';
import type { Scheduler } from './scheduler.ts';
import type { TaskTable } from './taskTable.ts';
import { currentTzdata } from './tzdataVersion.ts';

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
  /** The rows the open left in storage, read before a slot that needs them (absent when the open read every row). */
  readonly rest?: RestReader;
}

const abortReason = (signal: AbortSignal): unknown => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');

/** An error that is not a ScheduleError, logged and answered as `internal_error`. */
function unexpected(deps: SlotRunnerDeps, op: Operation, error: unknown): ScheduleError {
  deps.logger.error('A schedule operation failed unexpectedly.', { operation: op.kind, cause: error });
  return new ScheduleError('internal_error', INTERNAL_ERROR_MESSAGE, { cause: error });
}

/** The answer to a refused or failed request, shaped for the kind of call (by `shape`, for a call answered with a value). */
function failureReply(
  deps: SlotRunnerDeps,
  op: Operation,
  error: unknown,
  shape: (op: Operation, failure: Failure) => ReplyValue = (_op, failure) => failure,
): ScheduleReplyBody {
  const scheduleError = error instanceof ScheduleError ? error : unexpected(deps, op, error);
  if (op.kind === 'archive.activity' || op.kind === 'archive.stop' || op.kind === 'delivery.commit') return rejected(scheduleError);
  return resolved(shape(op, scheduleError.toFailure()));
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
          isAttempting: ctx.isAttempting,
          retry: deps.config.retry,
          now,
        },
        op.sessionId,
        op.outcome,
      );
  }
}

/**
 * Settles every delivery attempt among `commands` as failed (nothing recorded); the receipts of
 * retried writes go back to waiting with their actors.
 */
function failedSettles(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): { effects: ActorEffect[]; failures: FailureCause[] } {
  const effects: ActorEffect[] = [];
  const failures: FailureCause[] = [];
  const now = deps.clock.now();
  for (const { operation: op } of commands) {
    if (op.kind !== 'delivery.commit') continue;
    const receipts = op.outcome.retried;
    if (receipts !== undefined) {
      const ids = receipts.map((r) => r.reminder.id);
      const cause: FailureCause = { ids, stage: 'commit', message: INTERNAL_ERROR_MESSAGE };
      failures.push(cause);
      deps.scheduler.receiptsUnwritten(ids);
      effects.push({
        type: 'receipts.failed',
        sessionId: op.sessionId,
        failures: receiptFailures(receipts, cause, deps.config.retry),
        now,
      });
      continue;
    }
    const ids = [...op.outcome.delivered.map((d) => d.id), ...op.outcome.failedIds, ...op.outcome.unrecordableIds];
    const cause: FailureCause = { ids, stage: 'resolve', message: INTERNAL_ERROR_MESSAGE };
    failures.push(cause);
    effects.push({
      type: 'delivery.settle',
      sessionId: op.sessionId,
      committed: [],
      failures: taskFailures([cause], deps.config.retry),
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

/** The outcome of a slot that settles with `reply` alone. */
const replyOnly = (reply: ScheduleReplyBody): CommandOutcome => ({ reply, effects: [], changes: [], failures: [] });

/** The call goes on in another slot, when its plan says so. */
const goesOn = (settled: { readonly continuation?: Operation }): { continuation?: Operation } =>
  settled.continuation === undefined ? {} : { continuation: settled.continuation };

/**
 * Before a create, when storage hands out task numbers and none is left: takes a block of them
 * (numbers no write uses are never used, as with the local counter).
 */
async function ensureTaskNumber(deps: SlotRunnerDeps): Promise<void> {
  const allocate = deps.storage.allocateTaskNumbers;
  if (allocate === undefined || deps.table.allocatedLeft > 0) return;
  deps.table.supplyTaskNumbers(await allocate.call(deps.storage, deps.table.nextAllocation));
}

/**
 * The write of a create plan under a new task id, reserved now, as the plan is executed. The id is
 * never handed out again even if the write fails (a failed write may still have landed); the
 * batch records the counter when the local counter handed it out.
 */
function withNewId(deps: SlotRunnerDeps, plan: CreatePlan): WritePlan {
  const { id, nextTaskNumber } = deps.table.reserveId();
  const planned = plan.withId(id);
  return nextTaskNumber === undefined ? planned : { ...planned, batch: { ...planned.batch, nextTaskNumber } };
}

/** Settles a slot that writes nothing: the timer hears its notes, the caller its answer. */
function settleRead(deps: SlotRunnerDeps, slot: ReadPlan): CommandOutcome {
  for (const error of slot.errors) deps.logger.error(error.message, error.data);
  deps.scheduler.receiptsUnwritten(slot.dropped);
  deps.scheduler.retryNow(slot.retryNow);
  deps.scheduler.rearm();
  return { reply: slot.reply, effects: slot.effects, changes: [], failures: slot.failures, ...goesOn(slot) };
}

/**
 * Writes a plan's batch and settles the slot; only a batch storage acknowledged changes memory.
 * `noteInDoubt` keeps the idempotent calls of a write that came back uncertain (by default with
 * this plan, which a retry sends again).
 */
async function commit(
  deps: SlotRunnerDeps,
  op: Operation,
  slot: WritePlan,
  signal: AbortSignal | undefined,
  noteInDoubt: (written: CommitBatch) => void = (written) => deps.inDoubt.note(slot, written, deps.table),
): Promise<CommandOutcome> {
  for (const error of slot.errors) deps.logger.error(error.message, error.data);
  if (signal?.aborted) return replyOnly(rejected(abortReason(signal)));
  // The first write after an open with other time-zone data records the version in use.
  const tzdata = currentTzdata();
  const written = deps.table.tzdata === tzdata ? slot.batch : { ...slot.batch, tzdata };
  // Written rows never change again: the storage may keep these very objects, as the table does.
  for (const row of written.puts) freezeRow(row);
  // The write's own duration, on the process's monotonic clock (the injected clock may be a test's).
  const startedAt = performance.now();
  try {
    await deps.storage.commit(written);
    deps.metrics.storageCommitted((performance.now() - startedAt) / 1000, true);
  } catch (error) {
    deps.metrics.storageCommitted((performance.now() - startedAt) / 1000, false);
    deps.logger.error('A schedule change could not be saved.', { operation: op.kind, cause: error });
    if (error instanceof ScheduleError && error.code === 'persistence_uncertain') noteInDoubt(written);
    const failure = slot.onWriteFailure(error);
    deps.scheduler.receiptsUnwritten([...slot.dropped, ...failure.commits.map((c) => c.reminder.id)]);
    deps.scheduler.rearm();
    return { reply: failure.reply, effects: failure.effects, changes: [], failures: failure.failures, ...goesOn(failure) };
  }
  deps.table.apply(written);
  deps.inDoubt.settled(written);
  for (const { sessionId, reminder: r } of slot.commits) {
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
  // A written receipt stays marked as being written until its actor, told of the write, reports without it.
  deps.scheduler.receiptsUnwritten(slot.dropped);
  if (slot.timing === 'keep') {
    deps.scheduler.recover();
    return { reply: slot.reply, effects: slot.effects, changes: [], failures: [] };
  }
  track(deps, slot.batch);
  // Tasks the batch did not write but asked to try again (a bulk run now of tasks whose request waits).
  deps.scheduler.retryNow(slot.retryNow);
  deps.scheduler.rearm();
  if (op.kind !== 'delivery.commit') deps.scheduler.kick();
  deps.scheduler.recover();
  return { reply: slot.reply, effects: slot.effects, changes: slot.changes, failures: slot.failures, ...goesOn(slot) };
}

/**
 * Executes a plan by its kind: a read settles at once, a write is written, and a create is written
 * under the id reserved for it now — none when the call was aborted first.
 */
async function execute(deps: SlotRunnerDeps, op: Operation, slot: SlotPlan, signal: AbortSignal | undefined): Promise<CommandOutcome> {
  switch (slot.kind) {
    case 'read':
      return settleRead(deps, slot);
    case 'write':
      return commit(deps, op, slot, signal);
    case 'create':
      try {
        await ensureTaskNumber(deps);
      } catch (error) {
        return replyOnly(failureReply(deps, op, error));
      }
      if (signal?.aborted) return replyOnly(rejected(abortReason(signal)));
      return commit(deps, op, withNewId(deps, slot), signal);
  }
}

/** Runs one command to its outcome; never rejects. */
async function runCommand(deps: SlotRunnerDeps, command: MailboxCommand): Promise<CommandOutcome> {
  const op = command.operation;
  const signal = op.kind === 'tool' ? op.signal : undefined;
  if (signal?.aborted) return replyOnly(rejected(abortReason(signal)));
  let slot: SlotPlan;
  try {
    slot = plan(deps, op, deps.clock.now());
  } catch (error) {
    return replyOnly(failureReply(deps, op, error));
  }
  return execute(deps, op, slot, signal);
}

/** A create of a run whose plan writes: its place in the slot, its plan and its caller's signal. */
interface PlannedCreate<P extends SlotPlan> {
  readonly index: number;
  readonly plan: P;
  readonly signal: AbortSignal | undefined;
}

/**
 * Runs a run of creates for different Sessions: each is planned in turn as it would be alone (its
 * own refusal, its own remembered call), the plans that write get their task ids in mailbox order
 * and are written as one batch, and each call is answered on its own. A call aborted before the
 * write is answered with its abort and left out of the batch (it takes no id); a failed write
 * answers every create of the batch as its plan says (`persistence_uncertain`) and changes nothing
 * in memory.
 */
async function runCreates(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): Promise<CommandOutcome> {
  const replies: ScheduleReplyBody[] = [];
  const planned: PlannedCreate<CreatePlan | WritePlan>[] = [];
  for (const [index, { operation: op }] of commands.entries()) {
    const signal = op.kind === 'tool' ? op.signal : undefined;
    if (signal?.aborted) {
      replies[index] = rejected(abortReason(signal));
      continue;
    }
    try {
      const slot = plan(deps, op, deps.clock.now());
      // A create that writes nothing answers a remembered call.
      if (slot.kind === 'read') replies[index] = slot.reply;
      else planned.push({ index, plan: slot, signal });
    } catch (error) {
      replies[index] = failureReply(deps, op, error);
    }
  }
  // Each create gets its id in mailbox order, unless its caller went away first.
  const reserved: PlannedCreate<WritePlan>[] = [];
  for (const { index, plan: p, signal } of planned) {
    const op = commands[index]?.operation;
    if (op === undefined) continue;
    try {
      if (p.kind === 'create') await ensureTaskNumber(deps);
    } catch (error) {
      replies[index] = failureReply(deps, op, error);
      continue;
    }
    if (signal?.aborted) replies[index] = rejected(abortReason(signal));
    else reserved.push({ index, plan: p.kind === 'create' ? withNewId(deps, p) : p, signal });
  }
  // Cancellation is checked again just before the write, as for a call alone.
  const writing = reserved.filter(({ index, signal }) => {
    if (signal?.aborted !== true) return true;
    replies[index] = rejected(abortReason(signal));
    return false;
  });
  const first = commands[writing[0]?.index ?? 0];
  if (first === undefined || writing.length === 0) {
    deps.scheduler.rearm();
    return { ...replyOnly(resolved(null)), replies };
  }
  const run = mergeCreatePlans(writing.map((w) => w.plan));
  let failed: ReturnType<CreateRun['failed']> | undefined;
  const merged = write({
    reply: resolved(null),
    batch: run.batch,
    effects: run.effects,
    changes: run.changes,
    onWriteFailure: (error) => {
      failed = run.failed(error);
      return unwritten(resolved(null), { effects: failed.effects });
    },
  });
  // Each in-doubt call is kept with its own plan: a retry sends that create's rows again, not the run's.
  const noteInDoubt = (): void => {
    for (const { plan: p } of writing) deps.inDoubt.note(p, p.batch, deps.table);
  };
  const outcome = await commit(deps, first.operation, merged, undefined, noteInDoubt);
  const answers = failed?.replies ?? run.replies;
  writing.forEach(({ index }, i) => {
    replies[index] = answers[i] ?? resolved(null);
  });
  return { ...outcome, replies };
}

const isCreate = (op: Operation): boolean => op.kind === 'tool' && op.name === 'schedule_create';

/** A delivery commit's plan (never a create). */
function readyPlan(slot: SlotPlan): ReadyPlan {
  if (slot.kind === 'create') throw new Error('A run of delivery commits holds a create.');
  return slot;
}

/**
 * Brings the rows the slot's calls read into the table, when the open left them in storage;
 * answers each call with the read's error when it fails (nothing else happens).
 */
async function readNeeded(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): Promise<CommandOutcome | undefined> {
  const need = deps.rest === undefined ? undefined : rowsNeeded(commands.map((c) => c.operation));
  if (need === undefined) return undefined;
  try {
    await deps.rest?.read(need);
    return undefined;
  } catch (error) {
    const replies = commands.map((c) => failureReply(deps, c.operation, error, unreadAnswer));
    return { ...replyOnly(replies[0] ?? resolved(null)), replies };
  }
}

/** Runs the commands of one slot (one call, a run of delivery commits or a run of creates); never rejects. */
export async function runSlot(deps: SlotRunnerDeps, commands: readonly MailboxCommand[]): Promise<CommandOutcome> {
  const first = commands[0];
  try {
    if (first === undefined) return replyOnly(resolved(null));
    const unread = await readNeeded(deps, commands);
    if (unread !== undefined) return unread;
    if (commands.length === 1) return await runCommand(deps, first);
    if (isCreate(first.operation)) return await runCreates(deps, commands);
    const now = deps.clock.now();
    const plans = commands.map((c) => readyPlan(plan(deps, c.operation, now)));
    return await execute(deps, first.operation, mergeDeliveryPlans(plans), undefined);
  } catch (error) {
    // Unreachable unless planning has a bug; the Sessions must still leave their attempt.
    deps.logger.error('A schedule operation failed unexpectedly.', { cause: error });
    const reply = resolved({ code: 'internal_error', message: INTERNAL_ERROR_MESSAGE });
    return { reply, replies: commands.map(() => reply), changes: [], ...failedSettles(deps, commands) };
  }
}
