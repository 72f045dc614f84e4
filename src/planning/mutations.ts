// The changes a mailbox slot can make to the domain, shared by the model tools and the remote
// namespace: create, update (with an optional complete-record compare-and-set), delete, and the
// archive's Session stop. Each returns a plan; the slot writes its batch and only then answers (a
// create's plan takes the id the slot reserves for it). A write that fails answers
// `persistence_uncertain` and changes nothing in memory.
import { describeValue } from '../domain/args/argShape.ts';
import { echoedId } from '../domain/args/fields.ts';
import { parseCreateArgs } from '../domain/args/selectors.ts';
import { ScheduleError } from '../domain/errors.ts';
import type { DeleteResult, ToolFailure } from '../domain/reads/replies.ts';
import { taskView, toView } from '../domain/reads/views.ts';
import { checkPauseNote, pauseRow, resumeRow, triggerRow } from '../domain/tasks/pause.ts';
import { recordFromRule } from '../domain/tasks/records.ts';
import { recordsEqual } from '../domain/tasks/recordsEqual.ts';
import { emptyHistory } from '../domain/tasks/retention.ts';
import type { DeliveryFailure, ScheduleView, TaskRow } from '../domain/tasks/types.ts';
import { applyUpdate } from '../domain/tasks/update.ts';
import { type CreatePlan, type ReadyPlan, read, resolved, type Unwritten, unwritten, type ViewReply, write } from './slotPlan.ts';
import type { TaskRows } from './taskRows.ts';

/** What a slot plan reads: the table, the time the slot started, and Sessions with an attempt in flight. */
export interface SlotContext {
  readonly table: TaskRows;
  readonly now: number;
  /** True while the Session's actor has a delivery attempt in flight (its actor is not retired yet). */
  readonly isAttempting: (sessionId: string) => boolean;
  /** The failure status of a task whose latest delivery attempt failed (its actor's). */
  readonly failureOf?: (id: string) => DeliveryFailure | undefined;
}

/** The failure value a tool or remote call returns when a write could not be confirmed. */
export function persistenceFailure(error: unknown): { code: 'persistence_uncertain'; message: string } {
  const detail = error instanceof ScheduleError && error.code === 'persistence_uncertain' ? ` ${error.message}` : '';
  return {
    code: 'persistence_uncertain',
    message: `The change could not be confirmed as saved; it may or may not have been written. Read the task list again before retrying.${detail}`,
  };
}

/** How a write that answers a view settles when it could not be confirmed. */
export const unconfirmed = (error: unknown): Unwritten<ToolFailure> => unwritten(resolved(persistenceFailure(error)));

const notFound = (id: unknown): ScheduleError =>
  new ScheduleError('schedule_not_found', `No task ${describeValue(id)} exists in this Session; list the Session's tasks to find its id.`);

/** The row `id` names in the Session, for the call `call`; `schedule_not_found` for anything else. */
export function storedRow(ctx: SlotContext, call: string, sessionId: string, id: unknown): TaskRow {
  if (typeof id !== 'string') {
    throw new ScheduleError('schedule_not_found', `${call} names no task: id is the task's id as a string, not ${describeValue(id)}.`);
  }
  const row = ctx.table.getInSession(sessionId, id);
  if (row === undefined) throw new ScheduleError('schedule_not_found', `No task ${describeValue(id)} is stored for this Session.`);
  return row;
}

/** Validates creation arguments and plans the new active row, under the id the slot runner reserves for it. */
export function planCreate(ctx: SlotContext, sessionId: string, args: unknown): CreatePlan<ViewReply> {
  const request = parseCreateArgs(args, ctx.now);
  return {
    kind: 'create',
    withId: (id) => {
      const record = recordFromRule(id, request.title, request.prompt, request.rule, request.target);
      const row: TaskRow = { sessionId, status: 'active', record, deliveryHistory: emptyHistory() };
      return write<ViewReply>({
        reply: resolved(toView(record, ctx.now)),
        batch: { puts: [row], deletes: [] },
        effects: [{ type: 'tasks.spawn', rows: [row] }],
        changes: [{ sessionId, ids: [id] }],
        onWriteFailure: unconfirmed,
      });
    },
  };
}

export interface UpdateEdits {
  readonly title?: unknown;
  readonly prompt?: unknown;
  readonly change?: unknown;
  /** `true` pauses, `false` resumes (after the other edits, in the same write). */
  readonly paused?: unknown;
  /** Why the task is paused (with `paused: true` only; checked by `checkPauseNote`). */
  readonly pauseNote?: unknown;
}

/** The view of a row as the slot answers it. */
export const viewOf = (ctx: SlotContext, row: TaskRow) => taskView(row, ctx.now, ctx.failureOf?.(row.record.id));

/** The active row `id` names in the Session: `schedule_not_found` or `schedule_ended` otherwise. */
function activeRowOf(ctx: SlotContext, sessionId: string, id: unknown, action: string): TaskRow {
  const row = typeof id === 'string' ? ctx.table.getInSession(sessionId, id) : undefined;
  if (row === undefined) throw notFound(id);
  if (row.status !== 'active') {
    throw new ScheduleError(
      'schedule_ended',
      `Task ${JSON.stringify(id)} has ended (it was delivered and has no further target); only active tasks can be ${action}.`,
    );
  }
  return row;
}

/** Writes `next` in place of `row` (nothing when they are the same object) and answers its view. */
function planPut(ctx: SlotContext, row: TaskRow, next: TaskRow): ReadyPlan<ViewReply> {
  if (next === row) return read(resolved(viewOf(ctx, row)));
  return write<ViewReply>({
    reply: resolved(viewOf(ctx, next)),
    batch: { puts: [next], deletes: [] },
    effects: [{ type: 'task.updated', row: next, now: ctx.now }],
    changes: [{ sessionId: row.sessionId, ids: [row.record.id] }],
    onWriteFailure: unconfirmed,
  });
}

/**
 * Updates an active task of the Session. With `expected`, the stored record must equal it
 * (`schedule_conflict` otherwise). An update that changes nothing writes nothing.
 */
export function planUpdate(ctx: SlotContext, sessionId: string, id: unknown, edits: UpdateEdits, expected?: unknown): ReadyPlan<ViewReply> {
  const row = activeRowOf(ctx, sessionId, id, 'updated');
  if (expected !== undefined && !recordsEqual(row.record, expected)) {
    throw new ScheduleError(
      'schedule_conflict',
      `Task ${JSON.stringify(id)} changed since it was read (a delivery, a target advance or another edit); nothing was written. Read it again and retry with the current record.`,
    );
  }
  if (edits.paused !== undefined && typeof edits.paused !== 'boolean') {
    throw new ScheduleError('invalid_selector', `paused must be true (pause) or false (resume); got ${describeValue(edits.paused)}.`);
  }
  if (edits.pauseNote !== undefined && edits.paused !== true) {
    throw new ScheduleError('invalid_selector', 'pauseNote goes with paused: true (a note says why a task is paused).');
  }
  const note = checkPauseNote(edits.pauseNote, 'pauseNote');
  const { record, changed } = applyUpdate(row.record, edits, ctx.now);
  const edited: TaskRow = changed ? { ...row, record } : row;
  const next = edits.paused === true ? pauseRow(edited, ctx.now, note) : edits.paused === false ? resumeRow(edited, ctx.now) : edited;
  return planPut(ctx, row, next);
}

/**
 * Pauses an active task of the Session, with `note` (checked by `checkPauseNote`) when given.
 * Pausing a paused task writes nothing, unless another note replaces its own (the pause instant stays).
 */
export function planPause(ctx: SlotContext, sessionId: string, id: unknown, note?: string): ReadyPlan<ViewReply> {
  const row = activeRowOf(ctx, sessionId, id, 'paused');
  return planPut(ctx, row, pauseRow(row, ctx.now, note));
}

/** Resumes a paused task of the Session; resuming a running task writes nothing. */
export function planResume(ctx: SlotContext, sessionId: string, id: unknown): ReadyPlan<ViewReply> {
  const row = activeRowOf(ctx, sessionId, id, 'resumed');
  return planPut(ctx, row, resumeRow(row, ctx.now));
}

/**
 * Asks for one extra delivery of an active task, as soon as its Session can take it. When a
 * request already waits (its delivery failed and waits for a retry), nothing is written and that
 * delivery is tried again at once.
 */
export function planTrigger(ctx: SlotContext, sessionId: string, id: unknown): ReadyPlan<ViewReply> {
  const row = activeRowOf(ctx, sessionId, id, 'run now');
  const next = triggerRow(row, ctx.now);
  if (next === row) {
    const ids = [row.record.id];
    return read(resolved(viewOf(ctx, row)), { retryNow: ids, effects: [{ type: 'tasks.retry', sessionId, ids, now: ctx.now }] });
  }
  return planPut(ctx, row, next);
}

/** Deletes a task of the Session (active or inactive) with its history. */
export function planDelete(ctx: SlotContext, sessionId: string, id: unknown): ReadyPlan<DeleteResult> {
  const row = typeof id === 'string' ? ctx.table.getInSession(sessionId, id) : undefined;
  if (row === undefined || typeof id !== 'string') return read(resolved({ ...echoedId(id), deleted: false, code: 'schedule_not_found' }));
  const remaining = ctx.table.activeRows(sessionId).filter((r) => r.record.id !== id).length;
  return write<DeleteResult>({
    reply: resolved({ id, deleted: true }),
    batch: { puts: [], deletes: [id] },
    effects:
      row.status === 'active'
        ? [{ type: 'tasks.remove', sessionId, ids: [id], retire: remaining === 0 && !ctx.isAttempting(sessionId) }]
        : [],
    changes: [{ sessionId, ids: [id] }],
    onWriteFailure: (error) => unwritten(resolved({ id, deleted: false, ...persistenceFailure(error) })),
  });
}

/** Deletes every active task of the Session in one write (archive admission's stop). */
export function planSessionStop(ctx: SlotContext, sessionId: string): ReadyPlan<undefined> {
  const ids = ctx.table.activeRows(sessionId).map((row) => row.record.id);
  if (ids.length === 0) return read(resolved(undefined));
  return write({
    reply: resolved(undefined),
    batch: { puts: [], deletes: ids },
    effects: [{ type: 'tasks.remove', sessionId, ids, retire: !ctx.isAttempting(sessionId) }],
    changes: [{ sessionId, ids }],
    // Archive admission rejects on failure.
    onWriteFailure: (error) => {
      const { code, message } = persistenceFailure(error);
      return unwritten({ ok: false, error: { code, message }, thrown: new ScheduleError(code, message, { cause: error }) });
    },
  });
}

/** The record views of a Session's active tasks, soonest first. */
export function activeViews(ctx: SlotContext, sessionId: string): ScheduleView[] {
  return ctx.table
    .activeRows(sessionId)
    .sort(byTarget)
    .map((row) => viewOf(ctx, row));
}

const byTarget = (a: TaskRow, b: TaskRow): number =>
  a.record.scheduledAt < b.record.scheduledAt
    ? -1
    : a.record.scheduledAt > b.record.scheduledAt
      ? 1
      : compareTaskIds(a.record.id, b.record.id);

/** Orders task ids by their number (`sch_2` before `sch_10`), other ids after, as strings. */
export function compareTaskIds(a: string, b: string): number {
  const na = /^sch_(\d+)$/.exec(a)?.[1];
  const nb = /^sch_(\d+)$/.exec(b)?.[1];
  if (na !== undefined && nb !== undefined) return Number(na) - Number(nb);
  if (na !== undefined) return -1;
  if (nb !== undefined) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
