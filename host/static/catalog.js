// The catalog: one page of tasks from the Host (50 at a time), with a search box, filters by
// Session, kind, state (paused and failing among them) and time-zone data drift, the order, and
// previous/next. Each row shows the task's state (with the failure or the pause under it), its
// next target read in the task's own zone and in the browser's, its last delivery, and the
// task's operations (pause or resume, run now or retry now); a title opens the task detail; a
// drifted task's state carries a "drifted" badge. Below 700 px the rows become cards (each cell's
// content in one element, so it stays in the value column beside the cell's label).
import { browserZone, describeTiming, formatInZone, recordZone, relative } from './format.js';
import { html, useEffect, useState } from './html.js';
import { TaskActions } from './taskActions.js';
import { StatusNote, taskState } from './taskStatus.js';

export { taskState };

const KINDS = ['after', 'at', 'every', 'daily', 'weekly', 'cron'];
const STATUSES = [
  ['', 'Any state'],
  ['scheduled', 'Scheduled'],
  ['overdue', 'Overdue'],
  ['active', 'Active (not ended)'],
  ['paused', 'Paused'],
  ['failing', 'Failing'],
  ['inactive', 'Ended'],
];
const SORTS = [
  ['next', 'Next target, soonest first'],
  ['lastDelivery', 'Last delivery, newest first'],
  ['title', 'Title'],
];

/** The search box and the filters; `onChange(patch)` with the changed members. */
function CatalogFilters({ query, sessions, onChange }) {
  const [text, setText] = useState(query.text);
  useEffect(() => {
    if (text === query.text) return undefined;
    const timer = setTimeout(() => onChange({ text }), 250);
    return () => clearTimeout(timer);
  }, [text, query.text, onChange]);
  const select = (id, label, key, options) => html`<div class="filter">
    <label for=${id}>${label}</label>
    <select id=${id} value=${query[key]} onChange=${(e) => onChange({ [key]: e.currentTarget.value })}>
      ${options.map(([value, words]) => html`<option key=${value} value=${value}>${words}</option>`)}
    </select>
  </div>`;
  return html`<div class="catalog-filters" role="search" aria-label="Find tasks">
    <div class="filter search">
      <label for="catalog-search">Search</label>
      <input
        id="catalog-search"
        type="search"
        value=${text}
        placeholder="Title, instruction, id or Session"
        onInput=${(e) => setText(e.currentTarget.value)}
        onKeyDown=${(e) => e.key === 'Enter' && onChange({ text })}
      />
    </div>
    ${select('catalog-session', 'Session', 'sessionId', [['', 'All Sessions'], ...sessions.map((s) => [s, s])])}
    ${select('catalog-kind', 'Kind', 'kind', [['', 'Any kind'], ...KINDS.map((k) => [k, k])])}
    ${select('catalog-status', 'State', 'status', STATUSES)}
    ${select('catalog-sort', 'Order', 'sort', SORTS)}
    <div class="filter check">
      <input
        id="catalog-drifted"
        class="drift-check"
        type="checkbox"
        checked=${query.drifted}
        onChange=${(e) => onChange({ drifted: e.currentTarget.checked })}
      />
      <label for="catalog-drifted" title="Tasks whose target the time-zone data in use no longer yields">Drifted only</label>
    </div>
  </div>`;
}

/** The catalog card: filters, the page's rows and the pager. */
export function Catalog({
  page,
  error,
  query,
  sessions,
  pageIndex,
  loading = false,
  selectedId,
  drifted = new Set(),
  nowMs,
  onQuery,
  onPage,
  onOpen,
  onActionDone,
  onActionError,
}) {
  const zone = browserZone();
  const entries = page?.entries ?? [];
  const total = page?.total ?? 0;
  const first = pageIndex * query.limit;
  const filtered = query.text !== '' || query.sessionId !== '' || query.kind !== '' || query.status !== '' || query.drifted;
  return html`<section class="card catalog" aria-labelledby="catalog-heading">
    <h2 id="catalog-heading">Tasks <span class="count">${page ? total : ''}</span></h2>
    <${CatalogFilters} query=${query} sessions=${sessions} onChange=${onQuery} />
    ${error && html`<p class="error" role="alert"><span class="code-badge">${error.code}</span> ${error.message}</p>`}
    ${
      page &&
      entries.length === 0 &&
      html`<p class="empty">${filtered ? 'No task matches these filters.' : html`No tasks yet. Create one with the form, or let an agent call <code>schedule_create</code>.`}</p>`
    }
    ${
      entries.length > 0 &&
      html`<table class="catalog-table">
          <thead>
            <tr>
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
            ${entries.map((entry) => {
              const { record } = entry;
              const state = taskState(entry, nowMs);
              const active = state !== 'ended';
              const selected = selectedId === record.id;
              return html`<tr key=${record.id} class=${`${active ? '' : 'inactive'} ${selected ? 'selected' : ''}`}>
                <td data-label="Title">
                  <a class="link title-link" href=${`#/tasks/${encodeURIComponent(record.id)}`} data-open-task=${record.id} aria-current=${selected ? 'true' : undefined} onClick=${(e) => onOpen(e, record.id)}>
                    ${record.title}
                  </a>
                </td>
                <td data-label="State">
                  <div>
                    <span class="badges">
                      <span class=${`badge state-${state}`}>${state}</span>
                      ${active && drifted.has(`${entry.sessionId}/${record.id}`) && html` <span class="badge drifted" title="the time-zone data no longer yields this target">drifted</span>`}
                    </span>
                    <${StatusNote} entry=${entry} nowMs=${nowMs} />
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
                  ${active ? html`<${TaskActions} entry=${entry} nowMs=${nowMs} named onDone=${onActionDone} onError=${onActionError} />` : html`<span class="muted">—</span>`}
                </td>
              </tr>`;
            })}
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
