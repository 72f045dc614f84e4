// What the examples print, as `npm run test:package` expects it from the packed package and the
// README shows it: the exact reminder text (one-shot framing) of examples/quickstart.mjs and the
// lines of examples/typed-results.ts.

/** The one message the Session receives in examples/quickstart.mjs. */
export const REMINDER_TEXT = [
  '[SCHEDULE REMINDER]',
  'This is a scheduled message from the user',
  'schedule_id_json: "sch_1"',
  'occurrence_at: 2030-01-01T09:01:00.000Z',
  'reminder_prompt_json: "Stand up and stretch."',
].join('\n');

/** What examples/typed-results.ts prints. */
export const TYPED_RESULTS_OUTPUT = [
  'sch_1 daily at 09:30:00 Europe/Berlin, next 2030-01-07T08:30:00.000Z',
  'listed 1: Standup (scheduled)',
  'refused: invalid_selector',
  'renamed to Daily standup',
  'history: 0 deliveries, keeps 200',
  'deleted sch_1',
  'second delete: schedule_not_found',
].join('\n');
