// Reads of one Session answered from the schema at the Host the call reached: a Session's tasks
// are its committed rows, so `schedule_list` and `remote.get`, `list` and `history` need neither the
// shard's lease nor its owner. They are planned exactly as the owner plans them (the same pure
// plans, over a table of the Session's rows read in one statement) instead of travelling to the
// owner and back through the database (a routed call's insert, notification, claim, answer and
// delete). What the owner holds only in memory is not seen: a failure status its task actor took
// and has not written yet (the stored one is shown), a receipt whose write is being retried.
import type { ScheduleReplyBody } from '../../machines/scheduleReply.ts';
import { isScheduleError } from '../domain/errors.ts';
import type { RetentionLimits } from '../domain/tasks/retention.ts';
import type { TaskRow } from '../domain/tasks/types.ts';
import type { SlotContext } from '../planning/mutations.ts';
import { planRemote } from '../planning/remotePlans.ts';
import { planToolCall } from '../planning/toolPlans.ts';
import { TaskTable } from '../runtime/taskTable.ts';
import { currentTzdata } from '../runtime/tzdataVersion.ts';
import type { RoutedCall } from './routedCall.ts';

/** The calls answered from the schema: the reads that name one Session. */
export function isSessionRead(call: RoutedCall): boolean {
  if (call.sessionId.length === 0) return false;
  if (call.kind === 'tool') return call.name === 'schedule_list';
  return call.kind === 'remote.get' || call.kind === 'remote.list' || call.kind === 'remote.history';
}

export interface SessionReadsDeps {
  /** Every row of the Session, read in one statement. */
  readonly rows: (sessionId: string) => Promise<readonly TaskRow[]>;
  readonly retention: RetentionLimits;
  readonly now: () => number;
}

/**
 * Answers a Session read (see {@link isSessionRead}) from its stored rows, as the owner's service
 * would answer it.
 *
 * @throws ScheduleError `persistence_uncertain` when the rows could not be read; `corrupt_schedule_log` for a bad row.
 */
export async function answerSessionRead(deps: SessionReadsDeps, call: RoutedCall): Promise<unknown> {
  const table = new TaskTable({ tasks: await deps.rows(call.sessionId), nextTaskNumber: 1 });
  const ctx: SlotContext = { table, now: deps.now(), isAttempting: () => false };
  if (call.kind === 'tool') {
    try {
      const plan = planToolCall(ctx, call.sessionId, call.name, call.args);
      if (plan.kind !== 'read') throw new Error(`${call.name} planned a write.`);
      return answered(plan.reply);
    } catch (error) {
      // A refused call answers its failure, as the owner's service answers it.
      if (isScheduleError(error)) return error.toFailure();
      throw error;
    }
  }
  if (call.kind === 'remote.get' || call.kind === 'remote.list' || call.kind === 'remote.history') {
    const method = call.kind.slice('remote.'.length) as 'get' | 'list' | 'history';
    const plan = planRemote(ctx, method, call.request, { retention: deps.retention, tzdata: currentTzdata() });
    return answered(plan.reply);
  }
  throw new Error(`${call.kind} is not a Session read.`);
}

/** The value of a plan's reply; a rejected one throws what it was rejected with. */
function answered(reply: ScheduleReplyBody): unknown {
  if (!reply.ok) throw reply.thrown;
  return reply.value;
}
