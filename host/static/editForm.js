// The staged edit form of one task. It captures the record when it opens; nothing is sent until
// Save, which sends that record as `expected` with only the fields that were changed. When the
// task changed meanwhile (another edit, a delivery) the Host answers `schedule_conflict`: the
// form says so and offers to reload the task. Cancel discards the edits.
import { ApiError, api, taskPath } from './api.js';
import { html, useState } from './html.js';
import { RulePreview } from './rulePreview.js';
import { changeOf, sameTiming, TIMING_KINDS, timingOfRecord } from './timing.js';
import { TimingFields } from './timingFields.js';

const EDIT_KINDS = TIMING_KINDS.filter((k) => k.kind !== 'after_seconds');

const fieldsOf = (record) => ({ title: record.title, prompt: record.prompt, timing: timingOfRecord(record) });

/** The edit form for `entry`; `onSaved(view)` after a save, `onCancel()` to close it. */
export function EditForm({ entry, onSaved, onCancel }) {
  const [expected, setExpected] = useState(entry.record);
  const [initial, setInitial] = useState(() => fieldsOf(entry.record));
  const [fields, setFields] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const set = (patch) => setFields({ ...fields, ...patch });
  const changedMeanwhile = JSON.stringify(entry.record) !== JSON.stringify(expected);

  async function save(event) {
    event.preventDefault();
    const body = { expected };
    if (fields.title !== initial.title) body.title = fields.title;
    if (fields.prompt !== initial.prompt) body.prompt = fields.prompt;
    if (!sameTiming(fields.timing, initial.timing)) body.change = changeOf(fields.timing);
    if (Object.keys(body).length === 1) return onCancel();
    setBusy(true);
    setError(null);
    try {
      onSaved(await api('PATCH', taskPath(entry.sessionId, expected.id), body));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  async function refresh() {
    setError(null);
    try {
      const catalog = await api('GET', '/api/catalog');
      const fresh = catalog.find((e) => e.sessionId === entry.sessionId && e.record.id === expected.id);
      if (fresh === undefined) throw new ApiError('schedule_not_found', 'This task no longer exists.', 404);
      const next = fieldsOf(fresh.record);
      setExpected(fresh.record);
      setInitial(next);
      setFields(next);
    } catch (e) {
      setError(e);
    }
  }

  const conflict = error?.code === 'schedule_conflict';
  return html`<form class="edit-form" aria-label="Edit task" onSubmit=${save}>
    <h3>Edit</h3>
    ${
      changedMeanwhile &&
      !conflict &&
      html`<p class="notice" role="status">This task changed after you started editing; saving will report a conflict.</p>`
    }
    <div class="field">
      <label for="edit-title">Title</label>
      <input id="edit-title" value=${fields.title} maxlength="120" onInput=${(e) => set({ title: e.currentTarget.value })} />
    </div>
    <div class="field">
      <label for="edit-prompt">Instruction</label>
      <textarea id="edit-prompt" rows="2" value=${fields.prompt} onInput=${(e) => set({ prompt: e.currentTarget.value })}></textarea>
    </div>
    <${TimingFields} state=${fields.timing} onChange=${(timing) => set({ timing })} idPrefix="edit" kinds=${EDIT_KINDS} />
    <${RulePreview} state=${fields.timing} />
    ${
      conflict &&
      html`<div class="error" role="alert">
      <p><strong>Not saved: this task was changed elsewhere</strong> (another edit, or a delivery moved its next target) after you opened the editor.</p>
      <p>Refresh to load the current version; your edits will be discarded.</p>
      <button type="button" onClick=${refresh}>Refresh</button>
    </div>`
    }
    ${error && !conflict && html`<p class="error" role="alert"><code>${error.code}</code> ${error.message}</p>`}
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>Save</button>
      <button type="button" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}
