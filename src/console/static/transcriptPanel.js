// The Session transcripts: every Session the Host knows, and the transcript of the chosen one —
// delivered reminders (user messages produced by `schedule`) and the demo agent's answers. The
// address names the Session and may name one message (a link from a task's history): that
// message is marked and scrolled into view. On PostgreSQL each line names the replica that wrote
// it (a reminder: the one that delivered it).
import { api } from './api.js';
import { browserZone, formatInZone } from './format.js';
import { html, useEffect, useState } from './html.js';
import { transcriptHref } from './route.js';

/** The transcripts tab; `version` changes when some transcript grew. */
export function TranscriptPanel({ sessionId, messageId, sessions, version }) {
  const [lines, setLines] = useState(null);
  const [error, setError] = useState(null);

  useEffect(() => {
    if (sessionId === null) return setLines(null);
    let live = true;
    api('GET', `/api/sessions/${encodeURIComponent(sessionId)}/transcript`).then(
      (l) => {
        if (!live) return;
        setLines(l);
        setError(null);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [sessionId, version]);

  useEffect(() => {
    if (messageId && lines) document.getElementById(`message-${messageId}`)?.scrollIntoView({ block: 'center' });
  }, [messageId, lines]);

  return html`<div class="transcripts">
    <nav class="card sessions" aria-label="Sessions">
      <h2>Sessions</h2>
      ${sessions.length === 0 && html`<p class="empty">No Sessions yet.</p>`}
      <ul>
        ${sessions.map(
          (id) => html`<li key=${id}>
            <a class="link" href=${transcriptHref(id)} aria-current=${id === sessionId ? 'page' : undefined}>${id}</a>
          </li>`,
        )}
      </ul>
    </nav>
    <section class="card transcript" aria-labelledby="transcript-heading">
      <h2 id="transcript-heading">${sessionId === null ? 'Transcript' : `Transcript of ${sessionId}`}</h2>
      ${error && html`<p class="error" role="alert"><span class="code-badge">${error.code}</span> ${error.message}</p>`}
      ${sessionId === null && html`<p class="empty">Choose a Session.</p>`}
      ${lines?.length === 0 && html`<p class="empty">Nothing delivered to this Session yet.</p>`}
      ${
        lines?.length > 0 &&
        html`<div role="log" aria-label=${`Transcript of ${sessionId}`}><ol class="lines">
        ${lines.map(
          (
            line,
          ) => html`<li key=${line.messageId} id=${`message-${line.messageId}`} class=${`line ${line.role} ${line.messageId === messageId ? 'marked' : ''}`} aria-current=${line.messageId === messageId ? 'true' : undefined}>
            <div class="meta"><strong>${line.role === 'user' ? `user · ${line.producer}` : line.producer}</strong> · ${formatInZone(line.at, browserZone())} · <code>${line.messageId}</code>${line.hostId && html` · <span class="delivered-by" title="The Host (replica) that wrote this line">via <code>${line.hostId}</code></span>`}</div>
            <pre>${line.text}</pre>
          </li>`,
        )}
      </ol></div>`
      }
    </section>
  </div>`;
}
