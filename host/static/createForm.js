// The create form: Session, title, instruction and one of the six timings, sent as the Session
// would call `schedule_create`. The zone is always sent explicitly (the picker starts with the
// browser's zone). A refused value shows the Host's code and message and keeps the input.
import { api } from './api.js';
import { html, useState } from './html.js';
import { RulePreview } from './rulePreview.js';
import { initialTiming, selectorOf } from './timing.js';
import { TimingFields } from './timingFields.js';

/** The create form; `onCreated(sessionId, view)` after a task was stored. */
export function CreateForm({ onCreated }) {
  const [sessionId, setSessionId] = useState('demo');
  const [title, setTitle] = useState('');
  const [prompt, setPrompt] = useState('');
  const [timing, setTiming] = useState(initialTiming);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);

  async function submit(event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
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
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return html`<form class="card create-form" aria-label="Create task" onSubmit=${submit}>
    <h2>New task</h2>
    <div class="field">
      <label for="create-session">Session</label>
      <input id="create-session" value=${sessionId} required onInput=${(e) => setSessionId(e.currentTarget.value)} spellcheck="false" />
    </div>
    <div class="field">
      <label for="create-title">Title</label>
      <input id="create-title" value=${title} maxlength="120" required onInput=${(e) => setTitle(e.currentTarget.value)} />
    </div>
    <div class="field">
      <label for="create-prompt">Instruction</label>
      <textarea id="create-prompt" rows="2" required value=${prompt} onInput=${(e) => setPrompt(e.currentTarget.value)}></textarea>
    </div>
    <${TimingFields} state=${timing} onChange=${setTiming} idPrefix="create" />
    <${RulePreview} state=${timing} />
    ${error && html`<p class="error" role="alert"><code>${error.code}</code> ${error.message}</p>`}
    <div class="actions">
      <button type="submit" class="primary" disabled=${busy}>Create task</button>
    </div>
  </form>`;
}
