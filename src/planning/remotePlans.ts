// The remote namespace for the Host's UI: catalog, get, list, history, update and delete with
// explicit Session ids, and the archive admission calls. None of them activates an Agent or reads
// a Session log; each is one mailbox slot, so it sees every change made before it.
//
// One rule for every remote method: a request it refuses is answered, never rejected. The answer
// is `{code, message}`; `delete` answers `{id?, deleted: false, code, message}`, echoing the id
// only when it is a string short enough to be a task id. Every request is checked the same way,
// in the same order — a plain object (`invalid_selector`), only the members the method takes
// (`invalid_selector`, naming at most five), `sessionId` a string (`invalid_selector`), then an
// id naming a task of that Session (`schedule_not_found`, whatever the id's type); `catalog` takes
// no request (every task) or one of paging options, checked the same way (`catalogPage`) — and a message
// quotes at most 60 characters of any value it received (`describeValue`), so an answer stays
// small and serialisable whatever the caller sent. An unexpected failure answers
// `internal_error` and is logged. `drift` takes no request and `reanchor` has its own forms
// (driftPlans.ts), checked in the same spirit.
import type { RemoteMethod, RemoteReplies } from '../../machines/events.ts';
import { describeKeys, describeValue, isPlainObject, listWords, ownValue, unknownKeys } from '../domain/args/argShape.ts';
import { echoedId } from '../domain/args/fields.ts';
import { type Failure, INTERNAL_ERROR_MESSAGE, ScheduleError } from '../domain/errors.ts';
import { catalogPage, filterSessionId, filterTaskId } from '../domain/reads/catalogPage.ts';
import { historyPage } from '../domain/reads/historyPage.ts';
import type { ArchiveActivity, TaskNotDeleted, ToolFailure } from '../domain/reads/replies.ts';
import { countsSessionId } from '../domain/reads/stateCounts.ts';
import { checkPauseNote } from '../domain/tasks/pause.ts';
import type { RetentionLimits } from '../domain/tasks/retention.ts';
import type { CatalogEntry, DeliveryFailure, TaskRow } from '../domain/tasks/types.ts';
import { planBulk } from './bulkPlans.ts';
import { planDrift, planReanchor } from './driftPlans.ts';
import {
  activeViews,
  compareTaskIds,
  planDelete,
  planPause,
  planResume,
  planSessionStop,
  planTrigger,
  planUpdate,
  type SlotContext,
  storedRow,
} from './mutations.ts';
import { answer, type ReadyPlan, read, resolved } from './slotPlan.ts';

/** The members each remote method takes (`catalog` checks its own optional request: `catalogPage`). */
export const REMOTE_MEMBERS: Readonly<
  Record<Exclude<RemoteMethod, 'catalog' | 'drift' | 'reanchor' | 'counts' | 'bulk'>, readonly string[]>
> = {
  get: ['sessionId', 'id'],
  list: ['sessionId'],
  history: ['sessionId', 'id', 'limit', 'before'],
  update: ['sessionId', 'id', 'expected', 'title', 'prompt', 'change', 'paused', 'pauseNote'],
  delete: ['sessionId', 'id'],
  pause: ['sessionId', 'id', 'note'],
  resume: ['sessionId', 'id'],
  trigger: ['sessionId', 'id'],
};

/** What any remote call answers, a refusal included. */
type RemoteReply = RemoteReplies[RemoteMethod];

type Request = Readonly<Record<string, unknown>>;

/** A checked request: a plain object with known members and a string `sessionId`. */
function requestOf(method: keyof typeof REMOTE_MEMBERS, request: unknown): { r: Request; sessionId: string } {
  const allowed = REMOTE_MEMBERS[method];
  if (!isPlainObject(request)) {
    throw new ScheduleError(
      'invalid_selector',
      `remote.${method} takes an object with ${listWords(allowed)}; got ${describeValue(request)}.`,
    );
  }
  const extra = unknownKeys(request, allowed);
  if (extra.length > 0) {
    throw new ScheduleError(
      'invalid_selector',
      `remote.${method} does not accept ${describeKeys(extra)}; accepted: ${listWords(allowed)}.`,
    );
  }
  const sessionId = ownValue(request, 'sessionId');
  if (typeof sessionId !== 'string') {
    throw new ScheduleError(
      'invalid_selector',
      `remote.${method} needs sessionId: the Session's id as a string; got ${describeValue(sessionId)}.`,
    );
  }
  return { r: request, sessionId };
}

/**
 * The row the request's `id` names in its Session; `schedule_not_found` for anything else (SPEC:
 * a missing task is not found, whatever the reason), its message saying when no id was named.
 */
function rowOf(ctx: SlotContext, method: RemoteMethod, sessionId: string, r: Request): TaskRow {
  return storedRow(ctx, `remote.${method}`, sessionId, ownValue(r, 'id'));
}

/**
 * A catalog entry: binding, status, record and only the latest receipt (never the saved history),
 * with the pause (and its note) and the failure status while there is one: `failure` when given
 * (the task actor's), else the one stored with the row.
 */
export function catalogEntry(row: TaskRow, failure: DeliveryFailure | undefined = row.failure): CatalogEntry {
  const entry: Mutable<CatalogEntry> = { sessionId: row.sessionId, status: row.status, record: row.record };
  if (row.lastDelivery !== undefined) entry.lastDelivery = row.lastDelivery;
  if (row.pausedAt !== undefined) entry.pausedAt = row.pausedAt;
  if (row.pauseNote !== undefined) entry.pauseNote = row.pauseNote;
  if (failure !== undefined) entry.failure = failure;
  return entry;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const entryOf = (ctx: SlotContext) => (row: TaskRow) => catalogEntry(row, ctx.failureOf?.(row.record.id));

/** The rows a catalog page is chosen from: every row, or only the task a filter `id` names (read by id, not a scan). */
function catalogRows(ctx: SlotContext, request: unknown): Iterable<TaskRow> {
  const id = filterTaskId(request);
  if (id === undefined) return ctx.table.allRows();
  const row = ctx.table.get(id);
  return row === undefined ? [] : [row];
}

/**
 * The rows as a filter sees them: each with the failure status its actor holds. That is almost
 * always the stored one, and then the row itself is handed on, so a page chosen from 100,000
 * rows builds entries for its own rows only (`catalogEntry`, after the choice).
 */
function* withLiveFailure(ctx: SlotContext, rows: Iterable<TaskRow>): Generator<TaskRow> {
  for (const row of rows) {
    const failure = ctx.failureOf?.(row.record.id);
    if (failure === row.failure) yield row;
    else if (failure !== undefined) yield { ...row, failure };
    else {
      const { failure: _stale, ...rest } = row;
      yield rest;
    }
  }
}

/** What a remote plan reads besides its slot: how much history is kept, and the time-zone data version in use. */
export interface RemoteSettings {
  readonly retention: RetentionLimits;
  readonly tzdata: string;
}

function planMethod(
  ctx: SlotContext,
  method: RemoteMethod,
  request: unknown,
  settings: RemoteSettings,
  callId: unknown,
): ReadyPlan<RemoteReply> {
  if (method === 'catalog') {
    // Without a request, every task in id order; with options, one page.
    if (request === undefined) {
      const rows = [...ctx.table.allRows()].sort((a, b) => compareTaskIds(a.record.id, b.record.id));
      return answer(rows.map(entryOf(ctx)));
    }
    const page = catalogPage(withLiveFailure(ctx, catalogRows(ctx, request)), request, ctx.now);
    const entries = page.entries.map((row) => catalogEntry(row));
    return answer({ ...page, entries, counts: ctx.table.counts(ctx.now, filterSessionId(request)) });
  }
  if (method === 'counts') return answer(ctx.table.counts(ctx.now, countsSessionId(request)));
  if (method === 'bulk') return planBulk(ctx, request, callId, entryOf(ctx));
  if (method === 'drift') return planDrift(ctx, request, settings.tzdata);
  if (method === 'reanchor') return planReanchor(ctx, request);
  const { r, sessionId } = requestOf(method, request);
  switch (method) {
    case 'list':
      return answer(activeViews(ctx, sessionId));
    case 'get':
      return answer(entryOf(ctx)(rowOf(ctx, method, sessionId, r)));
    case 'history':
      return answer(
        historyPage(rowOf(ctx, method, sessionId, r), { limit: ownValue(r, 'limit'), before: ownValue(r, 'before') }, settings.retention),
      );
    case 'update': {
      const expected = ownValue(r, 'expected');
      if (!isPlainObject(expected)) {
        throw new ScheduleError(
          'invalid_selector',
          `remote.update needs expected: the complete record as it was read before editing; got ${describeValue(expected)}.`,
        );
      }
      const row = rowOf(ctx, method, sessionId, r);
      const edits = {
        title: ownValue(r, 'title'),
        prompt: ownValue(r, 'prompt'),
        change: ownValue(r, 'change'),
        paused: ownValue(r, 'paused'),
        pauseNote: ownValue(r, 'pauseNote'),
      };
      return planUpdate(ctx, sessionId, row.record.id, edits, expected);
    }
    case 'delete':
      return planDelete(ctx, sessionId, rowOf(ctx, method, sessionId, r).record.id);
    case 'pause': {
      const id = rowOf(ctx, method, sessionId, r).record.id;
      return planPause(ctx, sessionId, id, checkPauseNote(ownValue(r, 'note')));
    }
    case 'resume':
      return planResume(ctx, sessionId, rowOf(ctx, method, sessionId, r).record.id);
    case 'trigger':
      return planTrigger(ctx, sessionId, rowOf(ctx, method, sessionId, r).record.id);
  }
}

/**
 * The answer to a refused remote call: `{code, message}`, or for `delete` the not-deleted form
 * (with the request's id when it is a string of at most 128 characters).
 */
function refusal(method: RemoteMethod, request: unknown, failure: Failure): ToolFailure | TaskNotDeleted {
  if (method !== 'delete') return failure;
  const id = isPlainObject(request) ? ownValue(request, 'id') : undefined;
  return { ...echoedId(id), deleted: false, ...failure };
}

/** Plans one remote call. Never throws: a refused call is answered (see the rule above). */
export function planRemote(
  ctx: SlotContext,
  method: RemoteMethod,
  request: unknown,
  settings: RemoteSettings,
  callId?: unknown,
): ReadyPlan<RemoteReply> {
  try {
    return planMethod(ctx, method, request, settings, callId);
  } catch (error) {
    if (error instanceof ScheduleError) return answer(refusal(method, request, error.toFailure()));
    return read(resolved(refusal(method, request, { code: 'internal_error', message: INTERNAL_ERROR_MESSAGE })), {
      errors: [{ message: 'A schedule operation failed unexpectedly.', data: { operation: 'remote', method, cause: error } }],
    });
  }
}

/** Archive admission: the Session's active tasks as the `schedule` family, or nothing. */
export function planSessionActivity(ctx: SlotContext, sessionId: string): ReadyPlan<ArchiveActivity[]> {
  const rows = ctx.table.activeRows(sessionId).sort((a, b) => compareTaskIds(a.record.id, b.record.id));
  if (rows.length === 0) return answer([]);
  return answer([{ family: 'schedule', items: rows.map((row) => ({ id: row.record.id, label: row.record.title })) }]);
}

export { planSessionStop };
