// The bulk actions over the catalog: "Pause N", "Resume N" and "Run now N" ("Retry now N" while
// the list shows failing tasks) apply to the ticked rows, or, with none ticked, to every task the
// current filters match (`POST /api/bulk` with the filter, so the Host selects them as the call
// starts — N is the count on screen). A confirmation step says how many it applies to and to
// what, and for a pause takes an optional note; the answer is shown as counts: how many matched,
// how many were changed and how many were skipped, by reason.
import { api } from './api.js';
import { html, useState } from './html.js';
import { ErrorNote } from './problems.js';

const number = new Intl.NumberFormat('en-US');

const ACTION_WORDS = { pause: 'Pause', resume: 'Resume', trigger: 'Run now', retry: 'Retry now' };
const DONE_WORDS = { pause: 'paused', resume: 'resumed', trigger: 'run now' };
const SKIP_WORDS = {
  already_paused: 'already paused',
  not_paused: 'not paused',
  schedule_ended: 'ended',
  schedule_not_found: 'no longer there',
};

/** The `filter` of a bulk request for the catalog query: the members that are set. */
export function bulkFilter(query) {
  const filter = {};
  for (const key of ['text', 'sessionId', 'kind', 'status']) if (query[key]) filter[key] = query[key];
  if (query.drifted) filter.drifted = true;
  return filter;
}

/** What the selection is, in words: the ticked tasks, or the filters. */
function selectionWords(ticked, query) {
  if (ticked.length > 0) return ticked.length === 1 ? 'the ticked task' : 'the ticked tasks';
  const parts = Object.entries(bulkFilter(query)).map(([key, value]) => (key === 'drifted' ? 'drifted' : `${key} “${value}”`));
  return parts.length === 0 ? 'every task' : `every task with ${parts.join(', ')}`;
}

/** The answer in words: `Paused 790 of 792; skipped 2 (already paused: 2).` */
export function bulkResultText(result) {
  const skipped = result.skipped.reduce((n, s) => n + s.count, 0);
  const reasons = result.skipped.map((s) => `${SKIP_WORDS[s.code] ?? s.code}: ${number.format(s.count)}`).join(', ');
  const done = `${ACTION_WORDS[result.action] ?? result.action}: ${number.format(result.done)} of ${number.format(result.matched)} ${DONE_WORDS[result.action] ?? 'done'}`;
  return skipped === 0 ? `${done}.` : `${done}; ${number.format(skipped)} skipped (${reasons}).`;
}

/**
 * The bar: `ticked` (`[{sessionId, id}]`), `total` (how many the filters match), `query`;
 * `onDone()` after an answer (the list reloads), `onClearTicks()` after acting on ticked rows.
 */
export function BulkBar({ ticked, total, query, onDone, onClearTicks }) {
  const [asking, setAsking] = useState(null);
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const count = ticked.length > 0 ? ticked.length : total;
  const retry = ticked.length === 0 && query.status === 'failing';
  const words = (action) => ACTION_WORDS[action === 'trigger' && retry ? 'retry' : action];

  const ask = (action) => {
    setAsking(action);
    setNote('');
    setError(null);
    requestAnimationFrame(() => document.getElementById(action === 'pause' ? 'bulk-note' : 'bulk-confirm')?.focus());
  };
  const send = async () => {
    const action = asking;
    setBusy(true);
    setError(null);
    const body = { action, ...(action === 'pause' && note.trim() !== '' ? { note: note.trim() } : {}) };
    if (ticked.length > 0) body.tasks = ticked.map(({ sessionId, id }) => ({ sessionId, id }));
    else body.filter = bulkFilter(query);
    try {
      setResult(await api('POST', '/api/bulk', body));
      setAsking(null);
      if (ticked.length > 0) onClearTicks();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
      onDone();
    }
  };

  return html`<div class="bulk" role="group" aria-label="Bulk actions">
    <div class="bulk-buttons">
      <span class="muted">${ticked.length > 0 ? `${ticked.length} ticked:` : 'All matching:'}</span>
      ${['pause', 'resume', 'trigger'].map(
        (
          action,
        ) => html`<button key=${action} type="button" disabled=${count === 0 || busy} aria-expanded=${asking === action ? 'true' : 'false'} onClick=${() => ask(action)}>
          ${words(action)} ${number.format(count)}
        </button>`,
      )}
    </div>
    ${
      asking &&
      html`<div class="bulk-confirm">
        <p id="bulk-question">
          ${words(asking)} ${number.format(count)} ${count === 1 ? 'task' : 'tasks'}: ${selectionWords(ticked, query)}?
          ${ticked.length === 0 && html`<span class="muted"> The Host selects them when it starts, so the number may differ a little.</span>`}
        </p>
        ${
          asking === 'pause' &&
          html`<div class="field">
            <label for="bulk-note">Note (optional, why they are paused)</label>
            <input id="bulk-note" maxlength="500" value=${note} onInput=${(e) => setNote(e.currentTarget.value)} />
          </div>`
        }
        <div class="actions">
          <button type="button" id="bulk-confirm" class="primary" disabled=${busy} aria-describedby="bulk-question" onClick=${send}>
            ${busy ? 'Working…' : `Confirm: ${words(asking).toLowerCase()} ${number.format(count)}`}
          </button>
          <button type="button" disabled=${busy} onClick=${() => setAsking(null)}>Cancel</button>
        </div>
      </div>`
    }
    <${ErrorNote} error=${error} />
    ${result && html`<p class="notice bulk-result" role="status">${bulkResultText(result)} <button type="button" class="link" onClick=${() => setResult(null)}>Dismiss</button></p>`}
  </div>`;
}
