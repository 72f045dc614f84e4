// The catalog: the counts per state (each sets the State filter), the search box and filters
// (catalogFilters.js), the bulk actions (bulkActions.js), one page of tasks from the Host (50 at a
// time) and previous/next. Each row can be ticked for a bulk action and shows the task's state
// (with the pause and its note, and the failure with its whole cause, under it), its next target
// read in the task's own zone and in the browser's, its last delivery, and the task's operations
// (pause or resume, run now or retry now); a title opens the task detail; a drifted task's state
// carries a "drifted" badge. A row's state is read at the instant the Host answered the page
// (`now`), the instant its filter was applied at, so a row never contradicts the State filter;
// the relative times follow the page's clock. Below 700 px the rows become cards (each cell's
// content in one element, so it stays in the value column beside the cell's label).
import { BulkBar } from './bulkActions.js';
import { CatalogFilters } from './catalogFilters.js';
import { CountsBar } from './countsBar.js';
import { browserZone, describeTiming, formatInZone, recordZone, relative } from './format.js';
import { html } from './html.js';
import { TaskActions } from './taskActions.js';
import { StatusNote, taskState } from './taskStatus.js';

export { taskState };

/** The key of a task across Sessions. */
export const taskKey = (entry) => `${entry.sessionId}/${entry.record.id}`;

function Row({ entry, asOf, nowMs, zone, selected, ticked, drifted, onTick, onOpen, onActionDone, onActionError }) {
  const { record } = entry;
  const state = taskState(entry, asOf);
  const active = state !== 'ended';
  const failingToo = state === 'paused' && entry.failure !== undefined;
  return html`<tr class=${`${active ? '' : 'inactive'} ${selected ? 'selected' : ''}`} data-session=${entry.sessionId} data-kind=${record.kind}>
    <td class="tick" data-label="Select">
      <input type="checkbox" checked=${ticked} aria-label=${`Select “${record.title}”`} onChange=${(e) => onTick(entry, e.currentTarget.checked)} />
    </td>
    <td data-label="Title">
      <a class="link title-link" href=${`#/tasks/${encodeURIComponent(record.id)}`} data-open-task=${record.id} aria-current=${selected ? 'true' : undefined} onClick=${(e) => onOpen(e, record.id)}>
        ${record.title}
      </a>
    </td>
    <td data-label="State">
      <div>
        <span class="badges">
          <span class=${`badge state-${state}`}>${state}</span>
          ${failingToo && html` <span class="badge state-failing">failing</span>`}
          ${active && drifted && html` <span class="badge drifted" title="the time-zone data no longer yields this target">drifted</span>`}
        </span>
        <${StatusNote} entry=${entry} nowMs=${asOf} />
      </div>
    </td>
    <td data-label="Session"><code>${entry.sessionId}</code></td>
    <td data-label="Timing"><div><span class="kind">${record.kind}</span> ${describeTiming(record, { short: true })}</div></td>
    <td class="when" data-label="Next target">
      ${active ? html`<div>${formatInZone(record.scheduledAt, recordZone(record))}<div class="muted">${state === 'paused' ? 'paused' : relative(record.scheduledAt, nowMs)}</div></div>` : html`<span class="muted">ended</span>`}
    </td>
    <td class="when" data-label=${`In ${zone}`}>${active ? formatInZone(record.scheduledAt, zone) : '—'}</td>
    <td class="when" data-label="Last delivery">
      ${entry.lastDelivery ? html`<div>${formatInZone(entry.lastDelivery.deliveredAt, zone)}<div class="muted">${relative(entry.lastDelivery.deliveredAt, nowMs)}</div></div>` : html`<span class="muted">never</span>`}
    </td>
    <td class="ops" data-label="Actions">
      ${active ? html`<${TaskActions} entry=${entry} nowMs=${asOf} named onDone=${onActionDone} onError=${onActionError} />` : html`<span class="muted">—</span>`}
    </td>
  </tr>`;
}

/** The catalog card: counts, filters, bulk actions, the page's rows and the pager. */
export function Catalog({
  page,
  error,
  query,
  pageIndex,
  loading = false,
  selectedId,
  drifted = new Set(),
  ticked = new Map(),
  nowMs,
  onQuery,
  onPage,
  onOpen,
  onTick,
  onTickPage,
  onClearTicks,
  onBulkDone,
  onActionDone,
  onActionError,
}) {
  const zone = browserZone();
  const entries = page?.entries ?? [];
  const total = page?.total ?? 0;
  const asOf = page?.now ? Date.parse(page.now) : nowMs;
  const first = pageIndex * query.limit;
  const filtered = query.text !== '' || query.sessionId !== '' || query.kind !== '' || query.status !== '' || query.drifted;
  const allTicked = entries.length > 0 && entries.every((e) => ticked.has(taskKey(e)));
  return html`<section class="card catalog" aria-labelledby="catalog-heading">
    <h2 id="catalog-heading">Tasks <span class="count">${page ? total.toLocaleString('en-US') : ''}</span></h2>
    <${CountsBar} counts=${page?.counts} sessionId=${query.sessionId} status=${query.status} onStatus=${(status) => onQuery({ status })} />
    <${CatalogFilters} query=${query} onChange=${onQuery} />
    ${error && html`<p class="error" role="alert"><span class="code-badge">${error.code}</span> ${error.message}</p>`}
    ${page && total > 0 && html`<${BulkBar} ticked=${[...ticked.values()]} total=${total} query=${query} onDone=${onBulkDone} onClearTicks=${onClearTicks} />`}
    ${
      page &&
      entries.length === 0 &&
      html`<p class="empty">${filtered ? 'No task matches these filters.' : html`No tasks yet. Create one with the form, or let an agent call <code>schedule_create</code>.`}</p>`
    }
    ${
      entries.length > 0 &&
      html`<table class="catalog-table" aria-busy=${loading ? 'true' : 'false'}>
          <thead>
            <tr>
              <th scope="col" class="tick">
                <input type="checkbox" checked=${allTicked} aria-label="Select every task on this page" onChange=${(e) => onTickPage(entries, e.currentTarget.checked)} />
              </th>
              <th scope="col">Title</th>
              <th scope="col">State</th>
              <th scope="col">Session</th>
              <th scope="col">Timing</th>
              <th scope="col">Next target (task's zone)</th>
              <th scope="col">Next target (${zone})</th>
              <th scope="col">Last delivery</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            ${entries.map(
              (entry) => html`<${Row}
                key=${taskKey(entry)}
                entry=${entry}
                asOf=${asOf}
                nowMs=${nowMs}
                zone=${zone}
                selected=${selectedId === entry.record.id}
                ticked=${ticked.has(taskKey(entry))}
                drifted=${drifted.has(taskKey(entry))}
                onTick=${onTick}
                onOpen=${onOpen}
                onActionDone=${onActionDone}
                onActionError=${onActionError}
              />`,
            )}
          </tbody>
        </table>`
    }
    ${
      page &&
      total > 0 &&
      html`<nav class="pager" aria-label="Task pages">
        <button type="button" disabled=${loading || pageIndex === 0} onClick=${() => onPage(-1)}>Previous</button>
        <span class="muted" aria-live="polite">${first + 1}–${first + entries.length} of ${total}</span>
        <button type="button" disabled=${loading || page.nextCursor === undefined} onClick=${() => onPage(1)}>Next</button>
      </nav>`
    }
  </section>`;
}
