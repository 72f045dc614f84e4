// The Session transcripts: every Session the Host knows, and the transcript of the chosen one —
// delivered reminders (user messages produced by `schedule`) and the demo agent's answers.
import { api } from './api.js';
import { browserZone, formatInZone } from './format.js';
import { html, useEffect, useState } from './html.js';

/** The transcripts tab; `version` changes when some transcript grew. */
export function TranscriptPanel({ sessionId, onSelect, version }) {
  const [sessions, setSessions] = useState([]);
  const [lines, setLines] = useState(null);
  const [error, setError] = useState(null);

  useEffect(() => {
    api('GET', '/api/sessions').then(setSessions, setError);
  }, [version]);
  useEffect(() => {
    if (sessionId === null) return setLines(null);
    let live = true;
    api('GET', `/api/sessions/${encodeURIComponent(sessionId)}/transcript`).then(
      (l) => live && setLines(l),
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [sessionId, version]);

  return html`<div class="transcripts">
    <nav class="card sessions" aria-label="Sessions">
      <h2>Sessions</h2>
      ${sessions.length === 0 && html`<p class="empty">No Sessions yet.</p>`}
      <ul>
        ${sessions.map(
          (id) => html`<li key=${id}>
            <button class="link" aria-current=${id === sessionId ? 'true' : undefined} onClick=${() => onSelect(id)}>${id}</button>
          </li>`,
        )}
      </ul>
    </nav>
    <section class="card transcript" aria-labelledby="transcript-heading">
      <h2 id="transcript-heading">${sessionId === null ? 'Transcript' : `Transcript of ${sessionId}`}</h2>
      ${error && html`<p class="error" role="alert"><code>${error.code}</code> ${error.message}</p>`}
      ${sessionId === null && html`<p class="empty">Choose a Session.</p>`}
      ${lines?.length === 0 && html`<p class="empty">Nothing delivered to this Session yet.</p>`}
      ${
        lines?.length > 0 &&
        html`<ol class="lines" role="log" aria-label=${`Transcript of ${sessionId}`}>
        ${lines.map(
          (line) => html`<li key=${line.messageId} class=${`line ${line.role}`}>
            <div class="meta"><strong>${line.role === 'user' ? `user · ${line.producer}` : line.producer}</strong> · ${formatInZone(line.at, browserZone())} · <code>${line.messageId}</code></div>
            <pre>${line.text}</pre>
          </li>`,
        )}
      </ol>`
      }
    </section>
  </div>`;
}
