// What the page says when the Host refuses something: a sentence for a person, the Host's own
// detail in small print, and the library's code as a small badge. A refused form value is shown
// at its field (`fieldOf` picks the field from the code, the timing kind and the message).
import { html } from './html.js';

const PEOPLE_WORDS = {
  invalid_prompt: 'Write an instruction for the agent (at most 16,384 characters).',
  invalid_time_zone: 'This is not a time zone. Pick one from the list, such as Europe/Berlin.',
  not_future: 'This time has already passed. Pick one in the future.',
  time_out_of_range: 'This time is too far away.',
  invalid_session_id: 'A Session id is 1 to 64 letters, digits, “_”, “-” or “.”, starting with a letter or digit.',
  schedule_not_found: 'This task no longer exists.',
  schedule_ended: 'This task has ended: it cannot be changed, paused or run any more.',
  schedule_conflict: 'This task was changed elsewhere.',
  host_unreachable: 'The Host does not answer. The page keeps retrying; try again when it is back.',
  persistence_uncertain: 'The Host could not confirm that the change was saved. Reload before trying again.',
  internal_error: 'Something went wrong on the Host.',
};

const FIELD_WORDS = {
  title: 'Give the task a title of 1 to 120 characters.',
  prompt: PEOPLE_WORDS.invalid_prompt,
  session: PEOPLE_WORDS.invalid_session_id,
  expression: 'This cron expression is not valid: five fields, minute hour day month weekday.',
  everySeconds: 'Give the interval in seconds (at least 60), or as 15m, 2h or 1d.',
  afterSeconds: 'Give the delay in seconds, or as 15m, 2h or 1d.',
  time: 'Give the time as HH:MM, 24-hour (for example 09:30 or 17:45).',
  date: 'Pick a date.',
  weekdays: 'Pick at least one weekday.',
  zone: PEOPLE_WORDS.invalid_time_zone,
};

/** The Host's detail without the parts written for a model ("(a JSON number)" and the like). */
const detailOf = (message) =>
  String(message ?? '')
    .replace(/\s*\(a JSON [a-z]+\)/gi, '')
    .trim();

/** The form field a refusal belongs to (`null` for the form as a whole). */
export function fieldOf(error, kind) {
  const text = String(error?.message ?? '').toLowerCase();
  switch (error?.code) {
    case 'invalid_prompt':
      return 'prompt';
    case 'invalid_time_zone':
      return 'zone';
    case 'invalid_session_id':
      return 'session';
    case 'not_future':
    case 'time_out_of_range':
      return kind === 'after_seconds' ? 'afterSeconds' : kind === 'at' ? 'date' : 'time';
    case 'invalid_selector':
    case 'invalid_rule':
      if (/\btitle\b/.test(text)) return 'title';
      if (/weekday/.test(text)) return 'weekdays';
      if (kind === 'cron') return 'expression';
      if (kind === 'every_seconds') return 'everySeconds';
      if (kind === 'after_seconds') return 'afterSeconds';
      if (kind === 'at' && /\bdate\b/.test(text)) return 'date';
      if (/time_zone|zone/.test(text)) return 'zone';
      return kind === 'daily' || kind === 'weekly' || kind === 'at' ? 'time' : null;
    default:
      return null;
  }
}

/** A refusal in words for a person: `{text, detail, code}`. */
export function problemOf(error, field = null) {
  const text = (field && FIELD_WORDS[field]) ?? PEOPLE_WORDS[error.code] ?? 'The Host refused this.';
  const detail = detailOf(error.message);
  return { text, detail: detail === text ? '' : detail, code: error.code };
}

/** The code badge of a refusal. */
export const CodeBadge = ({ code }) => html`<span class="code-badge" title="error code">${code}</span>`;

/** A refusal shown as an alert (for the form as a whole, or a request that failed). */
export function ErrorNote({ error, field = null }) {
  if (!error) return null;
  const p = problemOf(error, field);
  return html`<div class="error" role="alert">
    <p>${p.text} <${CodeBadge} code=${p.code} /></p>
    ${p.detail && html`<p class="problem-detail">${p.detail}</p>`}
  </div>`;
}

/** The error of one field, tied to it by `id` (the field's `aria-describedby`). */
export function FieldError({ id, error, field }) {
  if (!error) return null;
  const p = problemOf(error, field);
  return html`<div class="field-error" id=${id}>
    <span>${p.text}</span> <${CodeBadge} code=${p.code} />
    ${p.detail && html`<div class="problem-detail">${p.detail}</div>`}
  </div>`;
}
