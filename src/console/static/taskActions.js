// The operations on one task, for its catalog row and its detail: Pause or Resume (whichever
// applies), Run now (one extra delivery as soon as the Session can take it) and, for a failing
// task, Retry now in its place (the same request: a due, failing task is retried at once). An
// ended task has none. While a request is out the buttons say so and ignore clicks, keeping the
// focus where it is; the answer (the task's view) or the refusal is handed to the caller. Where
// there is room (the detail panel), Pause first asks for an optional note saying why, shown
// wherever the pause is; a row's Pause pauses at once.
import { api, taskPath } from './api.js';
import { formatInZone, recordZone } from './format.js';
import { html, useState } from './html.js';
import { taskState } from './taskStatus.js';

/** Sends `action` (`pause`, `resume` or `trigger`) for the entry's task; resolves to its view. */
export const sendTaskAction = (entry, action, body) => api('POST', `${taskPath(entry.sessionId, entry.record.id)}/${action}`, body);

/** What the page says after `action` succeeded (`retry` is a trigger of a failing task). */
export function actionDoneText(action, title, view) {
  switch (action) {
    case 'pause':
      return `Paused “${title}”: it is not delivered until resumed or run now.`;
    case 'resume':
      return `Resumed “${title}”. Next target: ${formatInZone(view.scheduledAt, recordZone(view))}.`;
    case 'retry':
      return `Retrying “${title}” now.`;
    default:
      return `Run now: “${title}” goes out as soon as the Session can take it.`;
  }
}

/**
 * The action buttons of a task; `onDone(text, view)` after a success, `onError(error)` after a
 * refusal. `named` puts the task's title into each button's accessible name (for rows, where
 * many buttons say the same); `askNote` makes Pause ask for a note first.
 */
export function TaskActions({ entry, nowMs, onDone, onError, named = false, askNote = false, className = '' }) {
  const [busy, setBusy] = useState(null);
  const [noting, setNoting] = useState(false);
  const [note, setNote] = useState('');
  const state = taskState(entry, nowMs);
  if (state === 'ended') return null;
  const { title } = entry.record;
  const paused = state === 'paused';
  const failing = entry.failure !== undefined;
  const run = async (action) => {
    if (busy !== null) return;
    if (action === 'pause' && askNote && !noting) {
      setNoting(true);
      requestAnimationFrame(() => document.getElementById('pause-note')?.focus());
      return;
    }
    setBusy(action);
    try {
      const body = action === 'pause' && note.trim() !== '' ? { note: note.trim() } : undefined;
      const view = await sendTaskAction(entry, action === 'retry' ? 'trigger' : action, body);
      setNoting(false);
      setNote('');
      onDone(actionDoneText(action, title, view), view);
    } catch (error) {
      onError(error);
    } finally {
      setBusy(null);
    }
  };
  const button = (action, words, busyWords) => html`<button
    type="button"
    class=${`op op-${action}`}
    aria-label=${named ? `${words} “${title}”` : undefined}
    aria-disabled=${busy !== null ? 'true' : undefined}
    onClick=${() => run(action)}
  >
    ${busy === action ? busyWords : words}
  </button>`;
  if (noting && !paused) {
    return html`<form
      class=${`pause-note ${className}`}
      onSubmit=${(e) => {
        e.preventDefault();
        run('pause');
      }}
    >
      <label for="pause-note">Note (optional, why it is paused)</label>
      <input id="pause-note" maxlength="500" value=${note} onInput=${(e) => setNote(e.currentTarget.value)} />
      <span class="task-actions">
        <button type="submit" class="op op-pause" aria-disabled=${busy !== null ? 'true' : undefined}>
          ${busy === 'pause' ? 'Pausing…' : 'Pause'}
        </button>
        <button type="button" onClick=${() => setNoting(false)}>Cancel</button>
      </span>
    </form>`;
  }
  return html`<span class=${`task-actions ${className}`}>
    ${paused ? button('resume', 'Resume', 'Resuming…') : button('pause', 'Pause', 'Pausing…')}
    ${failing ? button('retry', 'Retry now', 'Retrying…') : button('trigger', 'Run now', 'Running…')}
  </span>`;
}
