// The detail of one task: what it is, when it fires next, its next occurrences, its delivery
// history, the staged edit form, and delete with an explicit confirmation.
import { api, taskPath } from './api.js';
import { EditForm } from './editForm.js';
import { browserZone, describeTiming, formatInZone, recordZone, relative } from './format.js';
import { HistoryList } from './historyList.js';
import { html, useEffect, useState } from './html.js';
import { Occurrences } from './occurrences.js';

/** The detail panel of a catalog entry. */
export function TaskDetail({ entry, nowMs, historyVersion, onOpenTranscript, onDeleted, onClose }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState(null);
  const [error, setError] = useState(null);
  const { record, sessionId } = entry;
  const active = entry.status === 'active';
  const key = `${sessionId}/${record.id}`;

  useEffect(() => {
    setEditing(false);
    setConfirming(false);
    setMessage(null);
    setError(null);
  }, [key]);

  async function remove() {
    try {
      await api('DELETE', taskPath(sessionId, record.id));
      onDeleted(`Deleted “${record.title}”.`);
    } catch (e) {
      setError(e);
      setConfirming(false);
    }
  }

  const startEditing = () => {
    setMessage(null);
    setEditing(true);
  };

  const saved = (view) => {
    setEditing(false);
    setMessage(`Saved. Next target: ${formatInZone(view.scheduledAt, recordZone(view))}.`);
  };

  return html`<section class="card detail" aria-labelledby="detail-heading">
    <header class="detail-head">
      <h2 id="detail-heading">${record.title}</h2>
      <button type="button" class="icon" aria-label="Close task detail" onClick=${onClose}>×</button>
    </header>
    <p class="muted">
      <code>${record.id}</code> in Session <button class="link" onClick=${() => onOpenTranscript(sessionId)}>${sessionId}</button>
      ${' · '} <span class=${`badge ${active ? 'ok' : ''}`}>${entry.status}</span>
    </p>
    ${message && html`<p class="notice" role="status">${message}</p>`}
    ${error && html`<p class="error" role="alert"><code>${error.code}</code> ${error.message}</p>`}
    ${
      editing
        ? html`<${EditForm} entry=${entry} onSaved=${saved} onCancel=${() => setEditing(false)} />`
        : html`<dl class="facts">
            <dt>Instruction</dt><dd class="prompt">${record.prompt}</dd>
            <dt>Timing</dt><dd><span class="kind">${record.kind}</span> ${describeTiming(record)}</dd>
            <dt>${active ? 'Next target' : 'Last target'}</dt>
            <dd>
              ${formatInZone(record.scheduledAt, recordZone(record))}
              ${recordZone(record) !== browserZone() && html`<div class="muted">${formatInZone(record.scheduledAt, browserZone())} (your zone)</div>`}
              ${active && html`<div class="muted">${relative(record.scheduledAt, nowMs)}</div>`}
            </dd>
            <dt>Last delivery</dt>
            <dd>${entry.lastDelivery ? `${formatInZone(entry.lastDelivery.deliveredAt, browserZone())} · ${entry.lastDelivery.messageId}` : 'never'}</dd>
          </dl>
          <div class="actions">
            ${active && html`<button type="button" onClick=${startEditing}>Edit</button>`}
            <button type="button" class="danger" onClick=${() => setConfirming(true)}>Delete</button>
          </div>`
    }
    ${
      confirming &&
      html`<div class="confirm" role="alertdialog" aria-labelledby="confirm-text">
      <p id="confirm-text">Delete “${record.title}”? It will not fire again and its delivery history is removed. Messages already delivered stay in the Session.</p>
      <div class="actions">
        <button type="button" class="danger" onClick=${remove}>Delete task</button>
        <button type="button" onClick=${() => setConfirming(false)}>Keep task</button>
      </div>
    </div>`
    }
    <${Occurrences} entry=${entry} />
    <${HistoryList} sessionId=${sessionId} id=${record.id} version=${historyVersion} />
  </section>`;
}
