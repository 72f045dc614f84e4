// The detail of one task: what it is, its status in words (a failure's stage, cause, attempts and
// next retry; a pause and since when), when it fires next, its next occurrences, its delivery
// history, the operations (pause or resume, run now or retry now), the staged edit form, and
// delete with an explicit confirmation. It takes the
// focus when it opens (and is scrolled into view); Escape closes the confirmation, or else the
// detail (never the edit form, so typed edits are not thrown away by a key).
import { api, taskPath } from './api.js';
import { EditForm } from './editForm.js';
import { browserZone, describeTiming, formatInZone, recordZone, relative } from './format.js';
import { HistoryList } from './historyList.js';
import { html, useEffect, useRef, useState } from './html.js';
import { Occurrences } from './occurrences.js';
import { ErrorNote } from './problems.js';
import { TaskActions } from './taskActions.js';
import { StatusText, taskState } from './taskStatus.js';

/** The detail panel of a catalog entry; `onChanged()` after an operation changed the task. */
export function TaskDetail({ entry, nowMs, historyVersion, transcriptHref, onDeleted, onClose, onChanged = () => undefined }) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [message, setMessage] = useState(null);
  const [error, setError] = useState(null);
  const heading = useRef(null);
  const editButton = useRef(null);
  const deleteButton = useRef(null);
  const { record, sessionId } = entry;
  const state = taskState(entry, nowMs);
  const active = entry.status === 'active';
  const key = `${sessionId}/${record.id}`;

  useEffect(() => {
    setEditing(false);
    setConfirming(false);
    setMessage(null);
    setError(null);
    heading.current?.scrollIntoView({ block: 'nearest' });
    heading.current?.focus({ preventScroll: true });
  }, [key]);

  useEffect(() => {
    const onKey = (event) => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      if (confirming) {
        event.preventDefault();
        setConfirming(false);
        requestAnimationFrame(() => deleteButton.current?.focus());
      } else if (!editing) {
        event.preventDefault();
        onClose();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [confirming, editing, onClose]);

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
  const stopEditing = () => {
    setEditing(false);
    requestAnimationFrame(() => editButton.current?.focus());
  };
  const saved = (view) => {
    stopEditing();
    setMessage(`Saved. Next target: ${formatInZone(view.scheduledAt, recordZone(view))}.`);
  };
  const operated = (text) => {
    setError(null);
    setMessage(text);
    onChanged();
  };
  const refused = (e) => {
    setMessage(null);
    setError(e);
  };
  const confirm = () => {
    setConfirming(true);
    requestAnimationFrame(() => document.getElementById('confirm-delete')?.focus());
  };

  return html`<section class="card detail" aria-labelledby="detail-heading">
    <header class="detail-head">
      <h2 id="detail-heading" tabindex="-1" ref=${heading}>${record.title}</h2>
      <button type="button" class="icon" aria-label="Close task detail" title="Close (Escape)" onClick=${onClose}>×</button>
    </header>
    <p class="muted">
      <code>${record.id}</code> in Session <a class="link" href=${transcriptHref(sessionId)}>${sessionId}</a>
      ${' · '} <span class=${`badge state-${state}`}>${state}</span>
    </p>
    ${message && html`<p class="notice" role="status">${message}</p>`}
    <${ErrorNote} error=${error} />
    ${
      editing
        ? html`<${EditForm} entry=${entry} onSaved=${saved} onCancel=${stopEditing} />`
        : html`<dl class="facts">
            <dt>Status</dt><dd><${StatusText} entry=${entry} nowMs=${nowMs} /></dd>
            <dt>Instruction</dt><dd class="prompt">${record.prompt}</dd>
            <dt>Timing</dt><dd><span class="kind">${record.kind}</span> ${describeTiming(record)}</dd>
            <dt>${active ? 'Next target' : 'Last target'}</dt>
            <dd>
              ${formatInZone(record.scheduledAt, recordZone(record))}
              ${recordZone(record) !== browserZone() && html`<div class="muted">${formatInZone(record.scheduledAt, browserZone())} (your zone)</div>`}
              ${active && html`<div class="muted">${state === 'paused' ? 'paused: not delivered until resumed' : relative(record.scheduledAt, nowMs)}</div>`}
            </dd>
            <dt>Last delivery</dt>
            <dd>${entry.lastDelivery ? html`${formatInZone(entry.lastDelivery.deliveredAt, browserZone())} · <a class="link" href=${transcriptHref(sessionId, entry.lastDelivery.messageId)}>${entry.lastDelivery.messageId}</a>` : 'never'}</dd>
          </dl>
          <div class="actions">
            <${TaskActions} entry=${entry} nowMs=${nowMs} onDone=${operated} onError=${refused} askNote />
            ${active && html`<button type="button" ref=${editButton} onClick=${startEditing}>Edit</button>`}
            <button type="button" class="danger" ref=${deleteButton} onClick=${confirm}>Delete</button>
          </div>`
    }
    ${
      confirming &&
      html`<div class="confirm" role="alertdialog" aria-labelledby="confirm-text">
      <p id="confirm-text">Delete “${record.title}”? It will not fire again and its delivery history is removed. Messages already delivered stay in the Session.</p>
      <div class="actions">
        <button type="button" class="danger" id="confirm-delete" onClick=${remove}>Delete task</button>
        <button type="button" onClick=${() => {
          setConfirming(false);
          requestAnimationFrame(() => deleteButton.current?.focus());
        }}>Keep task</button>
      </div>
    </div>`
    }
    <${Occurrences} entry=${entry} />
    <${HistoryList} sessionId=${sessionId} id=${record.id} version=${historyVersion} transcriptHref=${transcriptHref} />
  </section>`;
}
