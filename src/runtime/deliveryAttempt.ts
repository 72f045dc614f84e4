// One delivery attempt for one Session (docs/delivery.md): resolve the Agent (restoring a cold Session,
// a few at a time), append one message per one-shot and one batch message for all due recurring
// tasks (each with only its latest missed occurrence), then flush. It never throws: what the
// Session acknowledged and what failed come back as an outcome for the supervisor's mailbox to
// commit. Nothing is recorded here. A task whose last delivery still waits for its row write is
// not delivered again: it comes back as not delivered, and its write is retried on its own.
import type { DeliveredReminder, DeliveryOutcome, DeliveryRequest, FailureCause } from '../../machines/events.ts';
import { MAX_MESSAGE_ID_LENGTH } from '../domain/codec/index.ts';
import { ruleFromRecord } from '../domain/tasks/records.ts';
import { batchText, idempotencyKey, oneShotText, orderBatch, runNowKey } from '../domain/tasks/reminderText.ts';
import { type FailureStage, isRecurringKind, type TaskRow } from '../domain/tasks/types.ts';
import { isTargetDueAt } from '../domain/time/due.ts';
import { formatInstant, instantMs } from '../domain/time/instant.ts';
import { latestOccurrence } from '../domain/time/recurrence.ts';
import type { Clock, FollowupMessage, Logger, ScheduleAgent, SessionController } from '../ports.ts';
import type { Limiter } from './limiter.ts';

export interface DeliveryAttemptDeps {
  readonly sessions: SessionController;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Limits concurrent `resolveAgent` calls (cold Session restores). */
  readonly restores: Limiter;
  /**
   * True for a task whose acknowledged receipt still waits for its write, as its actor last
   * reported (never delivered again meanwhile).
   */
  readonly receiptWaits?: (id: string) => boolean;
}

interface Reminder {
  readonly row: TaskRow;
  readonly occurrence: number;
  /** `"manual"` when this is the run-now delivery the row asks for. */
  readonly trigger?: 'manual';
}

/** One message to append: its text, its idempotency keys and the reminders it carries. */
interface PlannedMessage {
  readonly text: string;
  readonly keys: string[];
  readonly reminders: Reminder[];
  readonly first: number;
}

/**
 * The occurrence a due task delivers now: a one-shot its target, a recurring task its latest
 * missed one; a task due only because it was run now (paused, or its target still ahead) the
 * instant of that request, marked manual. A run-now request of a task whose target is due anyway is
 * answered by that delivery.
 */
export function occurrenceToDeliver(row: TaskRow, now: number): Reminder {
  if (row.triggeredAt !== undefined && !isTargetDueAt(row, now)) {
    return { row, occurrence: instantMs(row.triggeredAt), trigger: 'manual' };
  }
  const target = instantMs(row.record.scheduledAt);
  if (!isRecurringKind(row.record.kind)) return { row, occurrence: target };
  return { row, occurrence: latestOccurrence(ruleFromRecord(row.record), target, now) };
}

/** The idempotency key of one reminder (a run-now delivery's key names the delivery it follows). */
const keyOf = (reminder: Reminder, occurrenceAt: string): string =>
  reminder.trigger === 'manual'
    ? runNowKey(reminder.row.record.id, occurrenceAt, reminder.row.lastDelivery?.messageId)
    : idempotencyKey(reminder.row.record.id, occurrenceAt);

/** The messages of one attempt, in the order they are appended (earliest occurrence first). */
export function planMessages(rows: readonly TaskRow[], now: number): PlannedMessage[] {
  const messages: PlannedMessage[] = [];
  const recurring: Reminder[] = [];
  for (const row of rows) {
    const reminder = occurrenceToDeliver(row, now);
    if (isRecurringKind(row.record.kind)) {
      recurring.push(reminder);
      continue;
    }
    const at = formatInstant(reminder.occurrence);
    messages.push({
      text: oneShotText(row.record.id, at, row.record.prompt),
      keys: [keyOf(reminder, at)],
      reminders: [reminder],
      first: reminder.occurrence,
    });
  }
  if (recurring.length > 0) {
    const entries = orderBatch(
      recurring.map((r) => ({ id: r.row.record.id, occurrenceAt: formatInstant(r.occurrence), prompt: r.row.record.prompt, reminder: r })),
    );
    let first = Number.POSITIVE_INFINITY;
    for (const r of recurring) first = Math.min(first, r.occurrence);
    messages.push({
      text: batchText(entries),
      keys: entries.map((e) => keyOf(e.reminder, e.occurrenceAt)),
      reminders: recurring,
      first,
    });
  }
  if (messages.length < 2) return messages;
  // Earliest first; at equal times one-shots (appended above) stay ahead of the batch.
  return messages
    .map((m, i) => ({ m, i }))
    .sort((a, b) => a.m.first - b.m.first || a.i - b.i)
    .map((x) => x.m);
}

/** Runs one attempt; resolves with what was delivered and what failed. */
export async function deliverBatch(deps: DeliveryAttemptDeps, request: DeliveryRequest): Promise<DeliveryOutcome> {
  const now = deps.clock.now();
  const waits = deps.receiptWaits;
  const held = waits === undefined ? [] : request.rows.filter((row) => waits(row.record.id)).map((row) => row.record.id);
  const rows = held.length === 0 ? request.rows : request.rows.filter((row) => !held.includes(row.record.id));
  if (rows.length === 0) return { now, delivered: [], failedIds: held, unrecordableIds: [] };
  const outcome = await deliverRows(deps, request.sessionId, rows, now);
  return held.length === 0 ? outcome : { ...outcome, failedIds: [...outcome.failedIds, ...held] };
}

async function deliverRows(deps: DeliveryAttemptDeps, sessionId: string, rows: readonly TaskRow[], now: number): Promise<DeliveryOutcome> {
  const { sessions, clock, logger, restores } = deps;
  const request = { sessionId, rows };
  const allIds = request.rows.map((row) => row.record.id);
  const messages = planMessages(request.rows, now);
  let agent: ScheduleAgent;
  try {
    agent = await restores.run(() => sessions.resolveAgent(request.sessionId));
  } catch (cause) {
    return { now, delivered: [], failedIds: allIds, unrecordableIds: [], causes: [failureCause(allIds, 'resolve', cause)] };
  }
  const appended: Array<{ message: PlannedMessage; messageId: string }> = [];
  const failedIds: string[] = [];
  const causes: FailureCause[] = [];
  const unrecordableIds: string[] = [];
  for (const message of messages) {
    const followup: FollowupMessage = { role: 'user', producer: 'schedule', text: message.text };
    try {
      const result = agent.followup(followup, { idempotencyKeys: [...message.keys] });
      const messageId = result?.messageId;
      if (typeof messageId !== 'string' || messageId.length === 0) throw new Error('followup() returned no messageId');
      if (messageId.length > MAX_MESSAGE_ID_LENGTH) {
        logger.error(
          `followup() returned a message id of ${messageId.length} characters; receipts keep at most ${MAX_MESSAGE_ID_LENGTH}. The reminder was appended but cannot be recorded, and it is not retried until another change or a restart.`,
          { sessionId: request.sessionId, keys: message.keys },
        );
        for (const reminder of message.reminders) unrecordableIds.push(reminder.row.record.id);
        continue;
      }
      appended.push({ message, messageId });
    } catch (cause) {
      const ids = message.reminders.map((reminder) => reminder.row.record.id);
      failedIds.push(...ids);
      causes.push(failureCause(ids, 'followup', cause));
    }
  }
  if (appended.length === 0) return { now, delivered: [], failedIds, unrecordableIds, causes };
  try {
    await agent.flush();
  } catch (cause) {
    const ids = allIds.filter((id) => !unrecordableIds.includes(id));
    return { now, delivered: [], failedIds: ids, unrecordableIds, causes: [failureCause(ids, 'flush', cause)] };
  }
  const deliveredAt = clock.now();
  const delivered: DeliveredReminder[] = [];
  for (const { message, messageId } of appended) {
    for (const { row, occurrence, trigger } of message.reminders) {
      const reminder = { id: row.record.id, occurrence, messageId, deliveredAt, prompt: row.record.prompt, startedRecord: row.record };
      delivered.push(trigger === undefined ? reminder : { ...reminder, trigger });
    }
  }
  return { now, delivered, failedIds, unrecordableIds, causes };
}

/** The cause of a failed stage, as the failure status and the log carry it. */
function failureCause(ids: readonly string[], stage: FailureStage, error: unknown): FailureCause {
  return { ids, stage, message: error instanceof Error ? error.message : String(error), error };
}
