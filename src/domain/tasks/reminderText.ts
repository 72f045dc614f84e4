// The exact text of delivered reminders (docs/delivery.md) and the idempotency key of each reminder in a
// message. One-shots (`after`, `at`) get one message each; recurring tasks due for the same
// Session share one batch message, even when only one is due. Lines are joined with "\n" and
// there is no trailing newline; ids and prompts are JSON-encoded.

/** One recurring task's contribution to a batch: its latest missed occurrence. */
export interface BatchEntry {
  readonly id: string;
  /** Canonical UTC `scheduledAt` of the occurrence. */
  readonly occurrenceAt: string;
  readonly prompt: string;
}

const PREAMBLE = 'This is a scheduled message from the user';

/** The message of a one-shot reminder. */
export function oneShotText(id: string, occurrenceAt: string, prompt: string): string {
  return [
    '[SCHEDULE REMINDER]',
    PREAMBLE,
    `schedule_id_json: ${JSON.stringify(id)}`,
    `occurrence_at: ${occurrenceAt}`,
    `reminder_prompt_json: ${JSON.stringify(prompt)}`,
  ].join('\n');
}

/** Batch entries in message order: by occurrence, then by id (plain string comparison). */
export function orderBatch<E extends BatchEntry>(entries: readonly E[]): E[] {
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...entries].sort((a, b) => compare(a.occurrenceAt, b.occurrenceAt) || compare(a.id, b.id));
}

/** The message of a batch of recurring reminders, its entries in message order (as `orderBatch` puts them). */
export function batchText(entries: readonly BatchEntry[]): string {
  const reminders = entries.map((e) => ({ schedule_id: e.id, occurrence_at: e.occurrenceAt, reminder_prompt: e.prompt }));
  return `[SCHEDULE REMINDER BATCH]\n${PREAMBLE}\nreminders_json: ${JSON.stringify(reminders)}`;
}

/** The idempotency key of one reminder in a message: `<taskId>@<occurrence scheduledAt>`. */
export const idempotencyKey = (id: string, occurrenceAt: string): string => `${id}@${occurrenceAt}`;

/**
 * The idempotency key of a run-now delivery: `<taskId>@<request instant>#run-now` followed by
 * `:<message id of the task's previous delivery>` when it has one. The request instant alone can
 * repeat (two requests at one clock reading, or one at the instant of an occurrence already
 * delivered), so the key also names the delivery it follows: that is stored with the row, so a
 * redelivery after a crash repeats the key, while every later delivery of the task follows
 * another message and gets another key.
 */
export const runNowKey = (id: string, requestedAt: string, previousMessageId: string | undefined): string =>
  `${id}@${requestedAt}#run-now${previousMessageId === undefined ? '' : `:${previousMessageId}`}`;
