// Reminder messages as the scheduler frames them (docs/delivery.md), all due at one instant, for
// the Session controller tests: a one-shot reminder, a batch of recurring ones, and the
// idempotency key of a schedule's occurrence.
import type { FollowupMessage } from '../../src/index.ts';

/** The occurrence every reminder here is due at, and the tests' wall clock. */
export const AT = '2030-01-07T08:00:00.000Z';
export const NOW = Date.parse(AT);

/** A one-shot reminder of schedule `id` with `prompt`. */
export const reminder = (id: string, prompt: string): FollowupMessage => ({
  role: 'user',
  producer: 'schedule',
  text: [
    '[SCHEDULE REMINDER]',
    'This is a scheduled message from the user',
    `schedule_id_json: ${JSON.stringify(id)}`,
    `occurrence_at: ${AT}`,
    `reminder_prompt_json: ${JSON.stringify(prompt)}`,
  ].join('\n'),
});

/** A batch of the reminders of schedules `ids`, each with the prompt `do <id>`. */
export const batch = (ids: readonly string[]): FollowupMessage => ({
  role: 'user',
  producer: 'schedule',
  text: [
    '[SCHEDULE REMINDER BATCH]',
    'These are scheduled messages from the user',
    `reminders_json: ${JSON.stringify(ids.map((id) => ({ schedule_id: id, occurrence_at: AT, reminder_prompt: `do ${id}` })))}`,
  ].join('\n'),
});

/** The idempotency key of schedule `id`'s occurrence at `AT`. */
export const keyOf = (id: string): string => `${id}@${AT}`;
