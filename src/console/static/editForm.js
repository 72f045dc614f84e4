// The staged edit form of one task. It captures the record when it opens; nothing is sent until
// Save, which sends that record as `expected` with only the fields that were changed. When the
// task changed meanwhile (another edit, a delivery) the Host answers `schedule_conflict`: the
// form keeps everything typed, reads the current version, shows what changed elsewhere and
// offers to apply the same changes to the current version (a new save with it as `expected`)
// or to discard them and load it. Cancel discards the edits.
import { ApiError, api, catalogQuery, taskPath } from './api.js';
import { createFieldIds } from './editFields.js';
import { useFieldErrors } from './fieldErrors.js';
import { describeTiming, formatInZone, recordZone } from './format.js';
import { html, useEffect, useState } from './html.js';
import { ErrorNote, FieldError } from './problems.js';
import { RulePreview } from './rulePreview.js';
import { changeOf, sameTiming, TIMING_KINDS, timingOfRecord } from './timing.js';
import { TimingFields } from './timingFields.js';

const EDIT_KINDS = TIMING_KINDS.filter((k) => k.kind !== 'after_seconds');

const fieldsOf = (record) => ({ title: record.title, prompt: record.prompt, timing: timingOfRecord(record) });

/** What differs between the version the editor opened and the current one, in words. */
function differences(before, after) {
  const out = [];
  if (before.title !== after.title) out.push(['Title', before.title, after.title]);
  if (before.prompt !== after.prompt) out.push(['Instruction', before.prompt, after.prompt]);
  if (describeTiming(before) !== describeTiming(after) || before.kind !== after.kind)
    out.push(['Timing', describeTiming(before), describeTiming(after)]);
  if (before.scheduledAt !== after.scheduledAt)
    out.push(['Next target', formatInZone(before.scheduledAt, recordZone(before)), formatInZone(after.scheduledAt, recordZone(after))]);
  return out;
}

/** The edit form for `entry`; `onSaved(view)` after a save, `onCancel()` to close it. */
export function EditForm({ entry, onSaved, onCancel }) {
  const [expected, setExpected] = useState(entry.record);
  const [initial, setInitial] = useState(() => fieldsOf(entry.record));
  const [fields, setFields] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [conflict, setConflict] = useState(null);
  const { errors, formError, refused, clear, reset, timingChanged, onPreview } = useFieldErrors(() => fields.timing.kind);
  const ids = createFieldIds('edit');
  const changedMeanwhile = JSON.stringify(entry.record) !== JSON.stringify(expected);
  useEffect(() => document.getElementById('edit-title')?.focus(), []);

  const edits = () => {
    const body = {};
    if (fields.title !== initial.title) body.title = fields.title;
    if (fields.prompt !== initial.prompt) body.prompt = fields.prompt;
    if (!sameTiming(fields.timing, initial.timing)) body.change = changeOf(fields.timing);
    return body;
  };

  async function current() {
    const page = await api('GET', `/api/catalog${catalogQuery({ id: expected.id, limit: 1 })}`);
    const fresh = page.entries.find((e) => e.sessionId === entry.sessionId);
    if (fresh === undefined) throw new ApiError('schedule_not_found', 'This task no longer exists.', 404);
    return fresh.record;
  }

  async function send(against) {
    const body = edits();
    if (Object.keys(body).length === 0) return onCancel();
    setBusy(true);
    reset();
    try {
      onSaved(await api('PATCH', taskPath(entry.sessionId, expected.id), { expected: against, ...body }));
    } catch (e) {
      if (e.code === 'schedule_conflict') {
        try {
          setConflict({ fresh: await current() });
        } catch (readError) {
          refused(readError, fields.timing.kind);
        }
      } else refused(e, fields.timing.kind);
    } finally {
      setBusy(false);
    }
  }

  const save = (event) => {
    event.preventDefault();
    send(conflict ? conflict.fresh : expected);
  };
  const reapply = async () => {
    // The changes stay those typed against the version the editor opened.
    const fresh = conflict.fresh;
    setConflict(null);
    await send(fresh);
  };
  const discard = () => {
    const next = fieldsOf(conflict.fresh);
    setExpected(conflict.fresh);
    setInitial(next);
    setFields(next);
    setConflict(null);
    reset();
  };

  const set = (patch) => setFields({ ...fields, ...patch });
  return html`<form class="edit-form" aria-label="Edit task" onSubmit=${save} noValidate>
    <h3>Edit</h3>
    ${
      changedMeanwhile &&
      !conflict &&
      html`<p class="notice" role="status">This task changed after you started editing. Saving will show what changed, and your edits are kept.</p>`
    }
    <div class=${`field ${errors.title ? 'invalid' : ''}`}>
      <label for="edit-title">Title</label>
      <input id="edit-title" value=${fields.title} maxlength="120"
        onInput=${(e) => {
          set({ title: e.currentTarget.value });
          clear('title');
        }} ...${ids.invalid(errors.title, 'edit-title')} />
      <${FieldError} id="edit-title-error" error=${errors.title} field="title" />
    </div>
    <div class=${`field ${errors.prompt ? 'invalid' : ''}`}>
      <label for="edit-prompt">Instruction</label>
      <textarea id="edit-prompt" rows="2" value=${fields.prompt}
        onInput=${(e) => {
          set({ prompt: e.currentTarget.value });
          clear('prompt');
        }} ...${ids.invalid(errors.prompt, 'edit-prompt')}></textarea>
      <${FieldError} id="edit-prompt-error" error=${errors.prompt} field="prompt" />
    </div>
    <${TimingFields}
      state=${fields.timing}
      onChange=${(timing) => {
        timingChanged(fields.timing, timing);
        set({ timing });
      }}
      idPrefix="edit"
      kinds=${EDIT_KINDS}
      errors=${errors}
    />
    <${RulePreview} state=${fields.timing} onProblem=${onPreview} />
    ${
      conflict &&
      html`<div class="error conflict" role="alert">
      <p><strong>Not saved: this task was changed elsewhere</strong> (another edit, or a delivery moved its next target) after you opened the editor. Your edits are still here.</p>
      ${
        differences(expected, conflict.fresh).length > 0 &&
        html`<table class="changes" aria-label="Changed elsewhere">
          <thead><tr><th scope="col">Field</th><th scope="col">When you opened it</th><th scope="col">Now</th></tr></thead>
          <tbody>
            ${differences(expected, conflict.fresh).map(([name, was, now]) => html`<tr key=${name}><th scope="row">${name}</th><td>${was}</td><td>${now}</td></tr>`)}
          </tbody>
        </table>`
      }
      <div class="actions">
        <button type="button" class="primary" onClick=${reapply} disabled=${busy}>Apply my changes to the current version</button>
        <button type="button" onClick=${discard}>Discard my changes and load it</button>
      </div>
    </div>`
    }
    <${ErrorNote} error=${formError} />
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>Save</button>
      <button type="button" onClick=${onCancel}>Cancel</button>
    </div>
  </form>`;
}
