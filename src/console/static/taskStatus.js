// A task's status in words for people: the state its row and its detail show (scheduled,
// overdue, failing, paused or ended) and, for a failing task, where its delivery failed, how often,
// the cause and when the next retry is due; for a paused one, since when and the note it was
// paused with. A paused task whose latest attempt failed is both: its row carries a second
// "failing" badge, so a list filtered to failing tasks shows each row as failing.
import { browserZone, relative, timeOfDay } from './format.js';
import { html } from './html.js';

/**
 * The state a row shows: `ended` (inactive), `paused` (it has `pausedAt`), `failing` (its latest
 * delivery attempt failed), `overdue` (due, not delivered yet) or `scheduled`.
 */
export function taskState(entry, nowMs) {
  if (entry.status !== 'active') return 'ended';
  if (entry.pausedAt !== undefined) return 'paused';
  if (entry.failure !== undefined) return 'failing';
  return Date.parse(entry.record.scheduledAt) <= nowMs ? 'overdue' : 'scheduled';
}

/** Where a delivery attempt failed, in words. */
export const STAGE_WORDS = {
  resolve: 'the Session could not be restored',
  followup: 'the reminder could not be handed to the Session',
  flush: 'the Session could not save the reminder',
  commit: 'the delivery could not be recorded',
};

const attempts = (n) => `${n} ${n === 1 ? 'attempt' : 'attempts'}`;

/** `the Session could not be restored (resolve) — 3 attempts, next retry 09:01:15`. */
export function failureSummary(failure, nowMs, zone = browserZone()) {
  const stage = `${STAGE_WORDS[failure.stage] ?? 'the delivery failed'} (${failure.stage})`;
  const retry = failure.nextRetryAt === undefined ? 'no retry scheduled' : `next retry ${timeOfDay(failure.nextRetryAt, zone, nowMs)}`;
  return `${stage} — ${attempts(failure.attempts)}, ${retry}`;
}

/** `since 09:01:30` (the time alone when it is today in the browser's zone). */
export const pausedSince = (pausedAt, nowMs, zone = browserZone()) => `since ${timeOfDay(pausedAt, zone, nowMs)}`;

/** The pause's note in quotes, as the row and the detail show it. */
export const PauseNote = ({ note }) => (note ? html`<span class="pause-note">“${note}”</span>` : null);

/**
 * The short note under a row's state badge: the pause (since when, and its note) and the failure
 * (its summary and its whole cause, wrapped); nothing for the other states.
 */
export function StatusNote({ entry, nowMs }) {
  const state = taskState(entry, nowMs);
  const paused =
    state === 'paused' &&
    html`<div class="status-note">${pausedSince(entry.pausedAt, nowMs)}${entry.pauseNote && html` · <${PauseNote} note=${entry.pauseNote} />`}</div>`;
  const failing =
    entry.status === 'active' &&
    entry.failure !== undefined &&
    html`<div class="status-note failing">
      <div>${failureSummary(entry.failure, nowMs)}</div>
      <div class="failure-message">${entry.failure.message}</div>
    </div>`;
  return paused || failing ? html`${paused}${failing}` : null;
}

/** The detail's status: a sentence per state, and the failure's cause and last attempt when there is one. */
export function StatusText({ entry, nowMs }) {
  const state = taskState(entry, nowMs);
  const zone = browserZone();
  const { failure } = entry;
  const sentence = {
    scheduled: `Scheduled: the next target is ${relative(entry.record.scheduledAt, nowMs)}.`,
    overdue: `Overdue: due ${relative(entry.record.scheduledAt, nowMs)}, not delivered yet.`,
    failing: failure && `Failing: ${failureSummary(failure, nowMs, zone)}.`,
    paused: entry.pausedAt && `Paused ${pausedSince(entry.pausedAt, nowMs, zone)}: not delivered until resumed or run now.`,
    ended: 'Ended: it will not fire again.',
  }[state];
  return html`<div class="status-text">
    <div>${sentence}</div>
    ${state === 'paused' && entry.pauseNote && html`<div>Note: <${PauseNote} note=${entry.pauseNote} /></div>`}
    ${
      failure &&
      html`<div class="failure-detail">
        ${state === 'paused' && html`<div>Its latest delivery attempt failed: ${failureSummary(failure, nowMs, zone)}.</div>`}
        <div>Last attempt ${timeOfDay(failure.lastAt, zone, nowMs)}: <span class="failure-message">${failure.message}</span></div>
      </div>`
    }
  </div>`;
}
