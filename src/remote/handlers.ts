// The remote namespace for the Host's UI (SPEC §5): catalog, list, history, update and delete
// with explicit Session ids, and the archive admission calls. None of them activates an Agent or
// reads a Session log; each is one mailbox slot, so it sees every change made before it.
import type { RemoteMethod } from '../../machines/events.ts';
import { describeKeys, describeValue, isPlainObject, ownValue } from '../domain/argShape.ts';
import { ScheduleError } from '../domain/errors.ts';
import { historyPage } from '../domain/historyPage.ts';
import type { RetentionLimits } from '../domain/retention.ts';
import type { CatalogEntry, TaskRow } from '../domain/types.ts';
import { activeViews, compareTaskIds, planDelete, planSessionStop, planUpdate, type SlotContext } from '../runtime/mutations.ts';
import { answer, type SlotPlan } from '../runtime/slotPlan.ts';

const REMOTE_UPDATE_MEMBERS = ['sessionId', 'id', 'expected', 'title', 'prompt', 'change'];

function requestObject(method: string, request: unknown): Readonly<Record<string, unknown>> {
  if (!isPlainObject(request)) throw new ScheduleError('invalid_selector', `remote.${method} takes an object argument.`);
  return request;
}

const sessionIdOf = (request: Readonly<Record<string, unknown>>): string => {
  const sessionId = ownValue(request, 'sessionId');
  return typeof sessionId === 'string' ? sessionId : '';
};

const notFound = (id: unknown): ScheduleError =>
  new ScheduleError('schedule_not_found', `No task ${describeValue(id)} is stored for this Session.`);

/** A catalog entry: binding, status, record and only the latest receipt (never the saved history). */
export function catalogEntry(row: TaskRow): CatalogEntry {
  const entry = { sessionId: row.sessionId, status: row.status, record: row.record };
  return row.lastDelivery === undefined ? entry : { ...entry, lastDelivery: row.lastDelivery };
}

/** Plans one remote call. Throws a ScheduleError for a refused call. */
export function planRemote(ctx: SlotContext, method: RemoteMethod, request: unknown, retention: RetentionLimits): SlotPlan {
  switch (method) {
    case 'catalog': {
      const rows = [...ctx.table.allRows()].sort((a, b) => compareTaskIds(a.record.id, b.record.id));
      return answer(rows.map(catalogEntry));
    }
    case 'get': {
      const r = requestObject(method, request);
      const id = ownValue(r, 'id');
      const row = typeof id === 'string' ? ctx.table.getInSession(sessionIdOf(r), id) : undefined;
      if (row === undefined) throw notFound(id);
      return answer(catalogEntry(row));
    }
    case 'list':
      return answer(activeViews(ctx, sessionIdOf(requestObject(method, request))));
    case 'history': {
      const r = requestObject(method, request);
      const id = ownValue(r, 'id');
      const row = typeof id === 'string' ? ctx.table.getInSession(sessionIdOf(r), id) : undefined;
      if (row === undefined) throw notFound(id);
      return answer(historyPage(row, { limit: ownValue(r, 'limit'), before: ownValue(r, 'before') }, retention));
    }
    case 'update': {
      const r = requestObject(method, request);
      const extra = Object.keys(r).filter((k) => !REMOTE_UPDATE_MEMBERS.includes(k));
      if (extra.length > 0) throw new ScheduleError('invalid_selector', `remote.update does not accept ${describeKeys(extra)}.`);
      const expected = ownValue(r, 'expected');
      if (!isPlainObject(expected)) {
        throw new ScheduleError('invalid_selector', 'remote.update needs expected: the complete record as it was read before editing.');
      }
      const edits = { title: ownValue(r, 'title'), prompt: ownValue(r, 'prompt'), change: ownValue(r, 'change') };
      return planUpdate(ctx, sessionIdOf(r), ownValue(r, 'id'), edits, expected);
    }
    case 'delete': {
      const r = requestObject(method, request);
      return planDelete(ctx, sessionIdOf(r), ownValue(r, 'id'));
    }
  }
}

/** Archive admission: the Session's active tasks as the `schedule` family, or nothing. */
export function planSessionActivity(ctx: SlotContext, sessionId: string): SlotPlan {
  const rows = ctx.table.activeRows(sessionId).sort((a, b) => compareTaskIds(a.record.id, b.record.id));
  if (rows.length === 0) return answer([]);
  return answer([{ family: 'schedule', items: rows.map((row) => ({ id: row.record.id, label: row.record.title })) }]);
}

export { planSessionStop };
