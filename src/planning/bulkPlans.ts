// `remote.bulk` as mailbox slots (src/domain/tasks/bulk.ts): the first slot checks the request, answers a
// remembered call, resolves the selection — the listed tasks, or the tasks the filter matches at
// that moment (tasks created later are not swept in) — and applies the first batch; each further
// batch is a slot of its own, queued at the back of the mailbox behind the deliveries and calls
// that arrived meanwhile. A batch plans each task as the single-task method does (`planPause`,
// `planResume`, `planTrigger`), skips the tasks it cannot or need not change, and writes the rest
// in one commit. With a `callId` the answer is remembered with the last batch (in the scope of
// the filter's Session, the first listed task's Session, or `BULK_CALL_SCOPE`), so a retry after
// the call finished answers the same.
import type { ActorEffect, DomainChange } from '../../machines/events.ts';
import { isScheduleError } from '../domain/errors.ts';
import {
  ALREADY_PAUSED,
  BULK_BATCH_SIZE,
  type BulkProgress,
  type BulkResult,
  BulkTargets,
  bulkResult,
  NOT_PAUSED,
  type ParsedBulkRequest,
  parseBulkRequest,
  withSkipped,
} from '../domain/tasks/bulk.ts';
import { canonicalArguments, checkCallId, expiredCalls, type RememberedCall, repeatedAnswer } from '../domain/tasks/rememberedCalls.ts';
import type { CatalogEntry, TaskRow } from '../domain/tasks/types.ts';
import { formatInstant } from '../domain/time/instant.ts';
import type { CommitBatch } from '../ports.ts';
import { FORGET_PER_COMMIT } from './idempotentPlans.ts';
import { planPause, planResume, planTrigger, type SlotContext } from './mutations.ts';
import { answer, type ReadPlan, type ReadyPlan, read, resolved, unwritten, write } from './slotPlan.ts';

/** The remembered-call scope of a bulk call that names no Session (no Session id is this short and starred). */
export const BULK_CALL_SCOPE = '*';

/** The Session a bulk call is remembered under. */
const scopeOf = (parsed: ParsedBulkRequest): string => parsed.sessionId ?? parsed.tasks?.[0]?.sessionId ?? BULK_CALL_SCOPE;

/** The ids the request selects now, and the listed ones that name no task of their Session. */
function resolve(
  ctx: SlotContext,
  parsed: ParsedBulkRequest,
  entryOf: (row: TaskRow) => CatalogEntry,
): { ids: string[]; missing: string[] } {
  const ids: string[] = [];
  const missing: string[] = [];
  if (parsed.tasks !== undefined) {
    for (const ref of parsed.tasks) {
      if (ctx.table.getInSession(ref.sessionId, ref.id) === undefined) missing.push(ref.id);
      else ids.push(ref.id);
    }
    return { ids, missing };
  }
  const matches = parsed.matches ?? (() => true);
  for (const row of ctx.table.allRows()) if (matches(entryOf(row), ctx.now)) ids.push(row.record.id);
  return { ids, missing };
}

/**
 * Plans a bulk call's first slot: the request checked, a remembered answer, or the selection
 * resolved and its first batch.
 *
 * @throws ScheduleError `invalid_selector` for a bad request or `callId`; `idempotency_conflict`
 *   when the `callId` was used for another call.
 */
export function planBulk(
  ctx: SlotContext,
  request: unknown,
  callId: unknown,
  entryOf: (row: TaskRow) => CatalogEntry,
): ReadyPlan<BulkResult> {
  const parsed = parseBulkRequest(request);
  let remember: BulkProgress['remember'];
  if (callId !== undefined) {
    const ref = { sessionId: scopeOf(parsed), callId: checkCallId(callId) };
    const args = canonicalArguments(request);
    const remembered = ctx.table.rememberedCall(ref);
    if (remembered !== undefined) return answer(JSON.parse(JSON.stringify(repeatedAnswer(remembered, 'remote.bulk', args))) as BulkResult);
    remember = { ...ref, args };
  }
  const { ids, missing } = resolve(ctx, parsed, entryOf);
  const progress: BulkProgress = {
    action: parsed.action,
    ...(parsed.note === undefined ? {} : { note: parsed.note }),
    targets: new BulkTargets(ids),
    next: 0,
    matched: ids.length + missing.length,
    done: 0,
    skipped: withSkipped([], 'schedule_not_found', missing),
    ...(remember === undefined ? {} : { remember }),
  };
  return planBulkBatch(ctx, progress);
}

/** What one task needs, or why it is skipped. */
function planTask(ctx: SlotContext, progress: BulkProgress, id: string): ReadyPlan | string {
  const row = ctx.table.get(id);
  if (row === undefined) return 'schedule_not_found';
  if (row.status !== 'active') return 'schedule_ended';
  if (progress.action === 'pause' && row.pausedAt !== undefined) return ALREADY_PAUSED;
  if (progress.action === 'resume' && row.pausedAt === undefined) return NOT_PAUSED;
  try {
    if (progress.action === 'pause') return planPause(ctx, row.sessionId, id, progress.note);
    if (progress.action === 'resume') return planResume(ctx, row.sessionId, id);
    return planTrigger(ctx, row.sessionId, id);
  } catch (error) {
    if (isScheduleError(error)) return error.code;
    throw error;
  }
}

/** Plans the next batch of a bulk call: its writes in one commit, and the next batch or the answer. */
export function planBulkBatch(ctx: SlotContext, progress: BulkProgress): ReadyPlan<BulkResult> {
  const ids = progress.targets.ids;
  const end = Math.min(ids.length, progress.next + BULK_BATCH_SIZE);
  const puts: TaskRow[] = [];
  const effects: ActorEffect[] = [];
  const retryNow: string[] = [];
  const changed = new Map<string, string[]>();
  const doneIds: string[] = [];
  let skipped = progress.skipped;
  for (let i = progress.next; i < end; i++) {
    const id = ids[i] as string;
    const plan = planTask(ctx, progress, id);
    if (typeof plan === 'string') {
      skipped = withSkipped(skipped, plan, [id]);
      continue;
    }
    doneIds.push(id);
    effects.push(...plan.effects);
    retryNow.push(...plan.retryNow);
    if (plan.kind === 'read') continue;
    puts.push(...plan.batch.puts);
    for (const change of plan.changes) {
      const list = changed.get(change.sessionId);
      if (list === undefined) changed.set(change.sessionId, [...change.ids]);
      else list.push(...change.ids);
    }
  }
  const after: BulkProgress = { ...progress, next: end, done: progress.done + doneIds.length, skipped };
  const batch = lastBatch(ctx, after, { puts, deletes: [] });
  const changes: DomainChange[] = Array.from(changed, ([sessionId, list]) => ({ sessionId, ids: list }));
  const { reply, ...next } = step(after);
  if (batch.puts.length === 0 && batch.calls === undefined) return read(reply, { ...next, effects, retryNow });
  return write(
    {
      reply,
      batch,
      effects,
      changes,
      // Nothing of this batch is known to be written: its tasks are skipped as uncertain, and the call goes on.
      onWriteFailure: () => {
        const { remember: _, ...unremembered } = after;
        const skippedNow = withSkipped(skipped, 'persistence_uncertain', doneIds);
        const { reply: answered, ...goesOn } = step({ ...unremembered, done: progress.done, skipped: skippedNow });
        return unwritten(answered, goesOn);
      },
    },
    { ...next, retryNow },
  );
}

/** The call's next step: the next batch while tasks remain (the answer so far is not sent), else the answer. */
function step(progress: BulkProgress): Pick<ReadPlan<BulkResult>, 'reply' | 'continuation'> {
  const reply = resolved(bulkResult(progress));
  return progress.next < progress.targets.ids.length ? { reply, continuation: { kind: 'bulk.batch', progress } } : { reply };
}

/** The batch, with the remembered call when it is the call's last one. */
function lastBatch(ctx: SlotContext, progress: BulkProgress, batch: CommitBatch): CommitBatch {
  const remember = progress.remember;
  if (remember === undefined || progress.next < progress.targets.ids.length) return batch;
  const call: RememberedCall = {
    sessionId: remember.sessionId,
    callId: remember.callId,
    operation: 'remote.bulk',
    arguments: remember.args,
    answer: bulkResult(progress),
    calledAt: formatInstant(ctx.now),
  };
  const forgetCalls = expiredCalls(ctx.table.rememberedCalls(), ctx.now, FORGET_PER_COMMIT);
  return { ...batch, calls: [call], ...(forgetCalls.length === 0 ? {} : { forgetCalls }) };
}
