// The next occurrences of a task from the Host's preview, starting with its committed target,
// in the task's zone and the browser's, with the DST notes (skipped local times, repeated hours).
import { api, taskPath } from './api.js';
import { browserZone, formatInZone, recordZone } from './format.js';
import { html, useEffect, useState } from './html.js';

/** The next `count` occurrences of the catalog entry's task. */
export function Occurrences({ entry, count = 5 }) {
  const [occurrences, setOccurrences] = useState(null);
  const [error, setError] = useState(null);
  const { sessionId, record, status } = entry;
  const zone = recordZone(record);
  const mine = browserZone();

  useEffect(() => {
    let live = true;
    api('GET', `${taskPath(sessionId, record.id)}/preview?count=${count}`)
      .then((list) => {
        if (!live) return;
        setOccurrences(list);
        setError(null);
      })
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [sessionId, record.id, record.scheduledAt, status, count]);

  return html`<section aria-labelledby="occurrences-heading" tabindex="0">
    <h3 id="occurrences-heading">Next occurrences</h3>
    ${error && html`<p class="error" role="alert"><code>${error.code}</code> ${error.message}</p>`}
    ${occurrences?.length === 0 && html`<p class="empty">None: this task has ended.</p>`}
    ${
      occurrences?.length > 0 &&
      html`<table aria-label="Next occurrences">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">In ${zone}</th>
          ${zone !== mine && html`<th scope="col">In your zone (${mine})</th>`}
          <th scope="col">DST notes</th>
        </tr>
      </thead>
      <tbody>
        ${occurrences.map(
          (o, i) => html`<tr key=${o.at}>
            <td>${i + 1}</td>
            <td class="when">${formatInZone(o.at, zone)}</td>
            ${zone !== mine && html`<td class="when">${formatInZone(o.at, mine)}</td>`}
            <td>${o.notes.length === 0 ? html`<span class="muted">—</span>` : o.notes.map((n) => html`<div class="note">${n}</div>`)}</td>
          </tr>`,
        )}
      </tbody>
    </table>`
    }
  </section>`;
}
