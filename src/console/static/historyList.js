// A task's delivery history, newest first, one page at a time: "Older deliveries" follows the
// Host's `nextBefore` cursor, "Newest" goes back to the first page. A new delivery reloads the
// page shown: on the first page it appears; an older page (read before a fixed cursor) stays
// where the reader is rather than jumping back to the newest. Each row shows how late the delivery was (delivered − occurrence), marks a run-now
// delivery ("run now"), says how many missed occurrences were coalesced into it and since when,
// and links to the message in the Session's transcript.
import { api, taskPath } from './api.js';
import { browserZone, formatInZone, lateness } from './format.js';
import { html, useEffect, useState } from './html.js';
import { ErrorNote } from './problems.js';

/** `3 missed occurrences coalesced since Mon 2030-01-07 09:02 GMT+1`. */
export function missedWords(receipt, zone) {
  const count = receipt.missed === 1 ? '1 missed occurrence' : `${receipt.missed} missed occurrences`;
  return `${count} coalesced since ${formatInZone(receipt.firstMissed, zone)}`;
}

/** The history of one task; `version` changes when it may have grown. */
export function HistoryList({ sessionId, id, version, transcriptHref, pageSize = 10 }) {
  const [cursor, setCursor] = useState(undefined);
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const zone = browserZone();

  useEffect(() => setCursor(undefined), [sessionId, id]);
  useEffect(() => {
    let live = true;
    const query = `?limit=${pageSize}${cursor === undefined ? '' : `&before=${encodeURIComponent(cursor)}`}`;
    api('GET', `${taskPath(sessionId, id)}/history${query}`)
      .then((p) => {
        if (!live) return;
        setPage(p);
        setError(null);
      })
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [sessionId, id, version, cursor, pageSize]);

  return html`<section aria-labelledby="history-heading" tabindex="0">
    <h3 id="history-heading">Delivery history</h3>
    <${ErrorNote} error=${error} />
    ${
      page &&
      (page.records.length === 0
        ? html`<p class="empty">No deliveries yet.</p>`
        : html`<table aria-label="Delivery history" class="history-table">
          <thead>
            <tr><th scope="col">Occurrence (${zone})</th><th scope="col">Delivered</th><th scope="col">Late by</th><th scope="col">Message</th></tr>
          </thead>
          <tbody>
            ${page.records.map(
              (r) => html`<tr key=${r.messageId}>
                <td class="when" data-label="Occurrence">
                  <div>
                    ${formatInZone(r.scheduledAt, zone)}
                    ${r.trigger === 'manual' && html` <span class="badge manual" title="delivered on request (Run now)">run now</span>`}
                    ${r.missed !== undefined && html`<div class="missed">${missedWords(r, zone)}</div>`}
                  </div>
                </td>
                <td class="when" data-label="Delivered">${formatInZone(r.deliveredAt, zone)}</td>
                <td data-label="Late by">${lateness(r.scheduledAt, r.deliveredAt)}</td>
                <td data-label="Message"><a class="link" href=${transcriptHref(sessionId, r.messageId)} aria-label=${`Message ${r.messageId} in the transcript of ${sessionId}`}><code>${r.messageId}</code></a></td>
              </tr>`,
            )}
          </tbody>
        </table>`)
    }
    ${
      page &&
      html`<div class="actions">
      ${cursor !== undefined && html`<button type="button" onClick=${() => setCursor(undefined)}>Newest</button>`}
      ${page.nextBefore !== undefined && html`<button type="button" onClick=${() => setCursor(page.nextBefore)}>Older deliveries</button>`}
      <span class="muted">Kept: ${page.retention.records} receipts, ${page.retention.days} days${page.earlierRecordsPruned ? ' · older ones were pruned' : ''}${page.earlierRecordsUnavailable ? ' · earlier deliveries have no receipt' : ''}</span>
    </div>`
    }
  </section>`;
}
