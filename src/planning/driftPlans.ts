// The remote namespace's time-zone data drift calls: `drift` reports the wall-clock targets the
// current zone data no longer yields (all of them, or with `{limit}` the first few and their
// number: driftPage.ts), and `reanchor` moves such targets to
// the rule's first occurrence strictly after now — one task (`{sessionId, id}`, answering its
// view) or in bulk (`{all: true, sessionId?}` or `{sessionId, ids}`, answering
// `{reanchored: View[]}`). A task that is not drifted is left alone; a bulk call writes once and
// notifies each Session it changed once. Refusals are thrown as ScheduleErrors; the caller
// (remotePlans.ts) turns them into answers.
import type { DomainChange } from '../../machines/events.ts';
import { describeKeys, describeValue, isPlainObject, listWords, ownValue, unknownKeys } from '../domain/args/argShape.ts';
import { ScheduleError } from '../domain/errors.ts';
import { type DriftPage, driftedFirst, driftLimitOf } from '../domain/reads/driftPage.ts';
import type { BulkReanchorResult, ToolFailure } from '../domain/reads/replies.ts';
import { ruleFromRecord } from '../domain/tasks/records.ts';
import type { ScheduleView, TaskRow } from '../domain/tasks/types.ts';
import { type DriftReport, driftOf, driftReport } from '../domain/time/drift.ts';
import { formatInstant } from '../domain/time/instant.ts';
import { wallClockFirings } from '../domain/time/recurrence.ts';
import { type SlotContext, storedRow, viewOf } from './mutations.ts';
import { answer, type ReadPlan, type ReadyPlan, resolved, unwritten, type WritePlan, write } from './slotPlan.ts';

/** The members `remote.reanchor` takes (one form uses `id`, the bulk forms `ids` or `all`). */
export const REANCHOR_MEMBERS: readonly string[] = ['sessionId', 'id', 'ids', 'all'];

/**
 * The answer to `remote.drift()` (every drifted task) or `remote.drift({limit})` (the first
 * `limit` of them and their `total`); `tzdata` is the version of the time-zone data in use.
 */
export function planDrift(ctx: SlotContext, request: unknown, tzdata: string): ReadPlan<DriftReport | DriftPage> {
  const writtenWith = ctx.table.tzdata;
  const versions = writtenWith === undefined ? { tzdata } : { tzdata, writtenWith };
  if (request === undefined) return answer({ ...versions, tasks: driftReport(ctx.table.activeRowsAll()) });
  const { tasks, total } = driftedFirst(ctx.table.activeRowsAll(), driftLimitOf(request));
  return answer({ ...versions, tasks, total });
}

/** The row with a moved target, or undefined when it is not drifted or the rule has no occurrence after now. */
function reanchored(row: TaskRow, now: number): TaskRow | undefined {
  if (driftOf(row) === undefined) return undefined;
  const rule = ruleFromRecord(row.record);
  if (rule.kind !== 'daily' && rule.kind !== 'weekly' && rule.kind !== 'cron') return undefined;
  const next = wallClockFirings(rule).next(now);
  if (next === null) return undefined;
  return { ...row, record: { ...row.record, scheduledAt: formatInstant(next) } };
}

/** A task of the Session that is still active, or the refusal (`schedule_not_found`, `schedule_ended`). */
function activeRow(ctx: SlotContext, sessionId: string, id: unknown): TaskRow {
  const row = storedRow(ctx, 'remote.reanchor', sessionId, id);
  if (row.status !== 'active') {
    throw new ScheduleError('schedule_ended', `Task ${JSON.stringify(row.record.id)} has ended; only active tasks can be re-anchored.`);
  }
  return row;
}

/** What `remote.reanchor` answers: the task's view, the bulk forms' moved views, or a refusal. */
type ReanchorReply = ScheduleView | BulkReanchorResult | ToolFailure;

/** One write of the moved rows, one change per Session, answering `reply` (a refusal when the write fails). */
function writeRows<R extends ScheduleView | BulkReanchorResult>(
  ctx: SlotContext,
  rows: readonly TaskRow[],
  reply: R,
): WritePlan<R | ToolFailure> {
  const bySession = new Map<string, string[]>();
  for (const row of rows) {
    const ids = bySession.get(row.sessionId) ?? [];
    ids.push(row.record.id);
    bySession.set(row.sessionId, ids);
  }
  const changes: DomainChange[] = [...bySession].map(([sessionId, ids]) => ({ sessionId, ids }));
  return write<R | ToolFailure>({
    reply: resolved(reply),
    batch: { puts: rows, deletes: [] },
    effects: rows.map((row) => ({ type: 'task.updated' as const, row, now: ctx.now })),
    changes,
    onWriteFailure: (error) =>
      unwritten(
        resolved({
          code: 'persistence_uncertain',
          message: `The re-anchored targets could not be saved: ${error instanceof Error ? error.message : String(error)}`,
        }),
      ),
  });
}

/** Plans `remote.reanchor` in any of its forms. */
export function planReanchor(ctx: SlotContext, request: unknown): ReadyPlan<ReanchorReply> {
  if (!isPlainObject(request)) {
    throw new ScheduleError(
      'invalid_selector',
      `remote.reanchor takes {sessionId, id}, {sessionId, ids} or {all: true}; got ${describeValue(request)}.`,
    );
  }
  const extra = unknownKeys(request, REANCHOR_MEMBERS);
  if (extra.length > 0) {
    throw new ScheduleError(
      'invalid_selector',
      `remote.reanchor does not accept ${describeKeys(extra)}; accepted: ${listWords(REANCHOR_MEMBERS)}.`,
    );
  }
  const sessionId = ownValue(request, 'sessionId');
  const forms = ['id', 'ids', 'all'].filter((key) => Object.hasOwn(request, key));
  if (forms.length !== 1) {
    throw new ScheduleError('invalid_selector', 'remote.reanchor takes exactly one of id, ids or all.');
  }
  if (forms[0] === 'all') {
    if (ownValue(request, 'all') !== true) {
      throw new ScheduleError('invalid_selector', `remote.reanchor needs all: true; got ${describeValue(ownValue(request, 'all'))}.`);
    }
    if (sessionId !== undefined && typeof sessionId !== 'string') {
      throw new ScheduleError('invalid_selector', `remote.reanchor needs sessionId as a string; got ${describeValue(sessionId)}.`);
    }
    const rows = sessionId === undefined ? [...ctx.table.activeRowsAll()] : ctx.table.activeRows(sessionId);
    return bulk(ctx, rows);
  }
  if (typeof sessionId !== 'string') {
    throw new ScheduleError(
      'invalid_selector',
      `remote.reanchor needs sessionId: the Session's id as a string; got ${describeValue(sessionId)}.`,
    );
  }
  if (forms[0] === 'ids') {
    const ids = ownValue(request, 'ids');
    if (!Array.isArray(ids)) {
      throw new ScheduleError('invalid_selector', `remote.reanchor needs ids: an array of task ids; got ${describeValue(ids)}.`);
    }
    return bulk(
      ctx,
      ids.map((id: unknown) => activeRow(ctx, sessionId, id)),
    );
  }
  const row = activeRow(ctx, sessionId, ownValue(request, 'id'));
  const moved = reanchored(row, ctx.now);
  if (moved === undefined) return answer(viewOf(ctx, row));
  return writeRows(ctx, [moved], viewOf(ctx, moved));
}

/** Re-anchors the drifted rows among `rows` (each once) in one write. */
function bulk(ctx: SlotContext, rows: readonly TaskRow[]): ReadyPlan<BulkReanchorResult | ToolFailure> {
  const seen = new Set<string>();
  const moved: TaskRow[] = [];
  for (const row of rows) {
    if (seen.has(row.record.id)) continue;
    seen.add(row.record.id);
    const next = reanchored(row, ctx.now);
    if (next !== undefined) moved.push(next);
  }
  const result: BulkReanchorResult = { reanchored: moved.map((row) => viewOf(ctx, row)) };
  if (moved.length === 0) return answer(result);
  return writeRows(ctx, moved, result);
}
