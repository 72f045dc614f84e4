// Which stored rows a slot's commands read, for a domain opened with only the rows due soon: a
// Session's call reads that Session's rows, a call across Sessions (the catalog, bulk runs, drift)
// reads every row, the counts per state need the rest counted (and a named Session read); a create reads no row (only the remembered calls, all read at
// open), and a delivery commit or a failure write only rows due now, which the open or the reads
// by due time already brought.
import type { Operation } from '../../machines/events.ts';
import { isPlainObject, ownValue } from '../domain/args/argShape.ts';
import { echoedId } from '../domain/args/fields.ts';
import type { Failure } from '../domain/errors.ts';
import type { TaskNotDeleted } from '../domain/reads/replies.ts';

/**
 * The rows a slot needs in memory: those of some Sessions (and, with `counts`, the counts of the
 * rest), or every row.
 */
export type RowsNeeded = { readonly sessions: readonly string[]; readonly counts?: true } | 'all';

/** The remote methods that read one Session (named by `request.sessionId`). */
const SESSION_METHODS: ReadonlySet<string> = new Set(['list', 'get', 'history', 'update', 'delete', 'pause', 'resume', 'trigger']);

/**
 * The Session one operation reads, 'all' for every row, 'counts' for the counts per state (and the
 * Session a request names), or undefined when it reads only rows due now.
 */
function needOf(op: Operation): string | 'all' | { readonly counts: string | undefined } | undefined {
  switch (op.kind) {
    case 'tool':
      return op.name === 'schedule_create' ? undefined : op.sessionId;
    case 'archive.activity':
    case 'archive.stop':
      return op.sessionId;
    case 'remote': {
      const sessionId = isPlainObject(op.request) ? op.request.sessionId : undefined;
      // The counts need the rest counted, not read (and a named Session read, for its own counts).
      if (op.method === 'counts') return { counts: typeof sessionId === 'string' ? sessionId : undefined };
      return SESSION_METHODS.has(op.method) && typeof sessionId === 'string' ? sessionId : 'all';
    }
    case 'bulk.batch':
      return 'all';
    case 'delivery.commit':
    case 'failure.record':
      return undefined;
  }
}

/** What the operations of one slot read beyond the rows due now; undefined when nothing. */
export function rowsNeeded(ops: readonly Operation[]): RowsNeeded | undefined {
  const sessions = new Set<string>();
  let counts = false;
  for (const op of ops) {
    const need = needOf(op);
    if (need === 'all') return 'all';
    if (typeof need === 'string') sessions.add(need);
    else if (need !== undefined) {
      counts = true;
      if (need.counts !== undefined) sessions.add(need.counts);
    }
  }
  if (counts) return { sessions: [...sessions], counts: true };
  return sessions.size === 0 ? undefined : { sessions: [...sessions] };
}

/**
 * The answer of a call whose rows could not be read, shaped as a failed write of that call
 * answers: a delete's is `{id?, deleted: false, code, message}`, any other call's the failure.
 */
export function unreadAnswer(op: Operation, failure: Failure): Failure | TaskNotDeleted {
  const deleting = (op.kind === 'tool' && op.name === 'schedule_delete') || (op.kind === 'remote' && op.method === 'delete');
  if (!deleting) return failure;
  const carrier = op.kind === 'tool' ? op.args : op.request;
  const id = isPlainObject(carrier) ? ownValue(carrier, 'id') : undefined;
  return { ...echoedId(id), deleted: false, ...failure };
}
