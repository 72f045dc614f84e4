// The catalog: every task of every Session, active ones first, with its next target read in the
// task's own zone and in the browser's, and its last delivery. A title opens the task detail.
import { browserZone, describeTiming, formatInZone, recordZone, relative } from './format.js';
import { html } from './html.js';

const isSelected = (selected, entry) => selected?.sessionId === entry.sessionId && selected?.id === entry.record.id;

/** The catalog table. */
export function Catalog({ entries, selected, onSelect, nowMs }) {
  const zone = browserZone();
  const rows = [...entries.filter((e) => e.status === 'active'), ...entries.filter((e) => e.status !== 'active')];
  return html`<section class="card catalog" aria-labelledby="catalog-heading">
    <h2 id="catalog-heading">Tasks <span class="count">${entries.length}</span></h2>
    ${
      rows.length === 0
        ? html`<p class="empty">No tasks yet. Create one with the form, or let an agent call <code>schedule_create</code>.</p>`
        : html`<table>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Session</th>
              <th scope="col">Timing</th>
              <th scope="col">Next target (task's zone)</th>
              <th scope="col">Next target (${zone})</th>
              <th scope="col">Last delivery</th>
            </tr>
          </thead>
          <tbody>
            ${rows.map((entry) => {
              const { record } = entry;
              const active = entry.status === 'active';
              return html`<tr key=${`${entry.sessionId}/${record.id}`} class=${`${active ? '' : 'inactive'} ${isSelected(selected, entry) ? 'selected' : ''}`}>
                <td>
                  <button class="link" aria-current=${isSelected(selected, entry) ? 'true' : undefined} onClick=${() => onSelect({ sessionId: entry.sessionId, id: record.id })}>
                    ${record.title}
                  </button>
                  ${!active && html` <span class="badge">inactive</span>`}
                </td>
                <td><code>${entry.sessionId}</code></td>
                <td><span class="kind">${record.kind}</span> ${describeTiming(record)}</td>
                <td class="when">
                  ${active ? html`${formatInZone(record.scheduledAt, recordZone(record))}<div class="muted">${relative(record.scheduledAt, nowMs)}</div>` : html`<span class="muted">ended</span>`}
                </td>
                <td class="when">${active ? formatInZone(record.scheduledAt, zone) : '—'}</td>
                <td class="when">
                  ${entry.lastDelivery ? html`${formatInZone(entry.lastDelivery.deliveredAt, zone)}<div class="muted">${relative(entry.lastDelivery.deliveredAt, nowMs)}</div>` : html`<span class="muted">never</span>`}
                </td>
              </tr>`;
            })}
          </tbody>
        </table>`
    }
  </section>`;
}
