// The create form: Session, title, instruction and one of the six timings, sent as the Session
// would call `schedule_create`. The zone is always sent explicitly (the picker starts with the
// browser's zone). A refused value is shown at its field, in words for a person with the Host's
// code as a badge, and the input is kept; changing the field clears its error. The Session field
// suggests the Host's Session ids that start with what is typed (sessionField.js).
import { api } from './api.js';
import { createFieldIds } from './editFields.js';
import { useFieldErrors } from './fieldErrors.js';
import { html, useState } from './html.js';
import { ErrorNote, FieldError } from './problems.js';
import { RulePreview } from './rulePreview.js';
import { SessionField, useSessionSuggestions } from './sessionField.js';
import { initialTiming, selectorOf } from './timing.js';
import { TimingFields } from './timingFields.js';

const { invalid: invalidProps } = createFieldIds();

/** The create form; `onCreated(sessionId, view)` after a task was stored. */
export function CreateForm({ onCreated }) {
  const [sessionId, setSessionId] = useState('demo');
  const suggestions = useSessionSuggestions(sessionId);
  const [title, setTitle] = useState('');
  const [prompt, setPrompt] = useState('');
  const [timing, setTiming] = useState(initialTiming);
  const [busy, setBusy] = useState(false);
  const { errors, formError, refused, clear, reset, timingChanged, onPreview } = useFieldErrors(() => timing.kind);

  async function submit(event) {
    event.preventDefault();
    setBusy(true);
    reset();
    try {
      const session = sessionId.trim();
      const view = await api('POST', `/api/sessions/${encodeURIComponent(session)}/tools/schedule_create`, {
        title,
        prompt,
        ...selectorOf(timing),
      });
      setTitle('');
      setPrompt('');
      onCreated(session, view);
    } catch (e) {
      refused(e, timing.kind);
    } finally {
      setBusy(false);
    }
  }

  return html`<form class="card create-form" aria-label="Create task" onSubmit=${submit} noValidate>
    <h2>New task</h2>
    <div class=${`field ${errors.session ? 'invalid' : ''}`}>
      <label for="create-session">Session</label>
      <${SessionField} id="create-session" value=${sessionId} suggestions=${suggestions.ids} required
        onInput=${(text) => {
          setSessionId(text);
          clear('session');
        }} ...${invalidProps(errors.session, 'create-session')} />
      <${FieldError} id="create-session-error" error=${errors.session} field="session" />
    </div>
    <div class=${`field ${errors.title ? 'invalid' : ''}`}>
      <label for="create-title">Title</label>
      <input id="create-title" value=${title} maxlength="120" required
        onInput=${(e) => {
          setTitle(e.currentTarget.value);
          clear('title');
        }} ...${invalidProps(errors.title, 'create-title')} />
      <${FieldError} id="create-title-error" error=${errors.title} field="title" />
    </div>
    <div class=${`field ${errors.prompt ? 'invalid' : ''}`}>
      <label for="create-prompt">Instruction</label>
      <textarea id="create-prompt" rows="2" required value=${prompt}
        onInput=${(e) => {
          setPrompt(e.currentTarget.value);
          clear('prompt');
        }} ...${invalidProps(errors.prompt, 'create-prompt')}></textarea>
      <${FieldError} id="create-prompt-error" error=${errors.prompt} field="prompt" />
    </div>
    <${TimingFields}
      state=${timing}
      onChange=${(next) => {
        timingChanged(timing, next);
        setTiming(next);
      }}
      idPrefix="create"
      errors=${errors}
    />
    <${RulePreview} state=${timing} onProblem=${onPreview} />
    <${ErrorNote} error=${formError} />
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>Create task</button>
    </div>
  </form>`;
}
