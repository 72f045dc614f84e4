// The drift banner of the Tasks tab: the daily, weekly and cron tasks whose committed target the
// time-zone data in use no longer yields (`GET /api/drift`), each with its title, Session, stored
// target and the rule's nearest occurrence in the task's zone, a "Re-anchor" button per task and
// "Re-anchor all". Nothing is shown while nothing has drifted. Drift comes from a new time-zone
// data release or an edited rule, not from deliveries, and the report reads every wall-clock rule
// of the schedule: it is read when the page opens, every minute, and after a re-anchor — never
// per change event.
import { api, catalogQuery, taskPath } from './api.js';
import { formatInZone, recordZone } from './format.js';
import { html, useEffect, useState } from './html.js';
import { useLiveResource } from './liveData.js';
import { ErrorNote } from './problems.js';

/** How many drifted tasks the banner lists by name; the rest are counted. */
const LISTED = 20;
/** How often the report is read again. */
export const DRIFT_RELOAD_MS = 60_000;

/**
 * The drift report, with the catalog record of each listed task (for its title and zone):
 * `{report, records, reload}`, `report` null while loading; `reload()` reads it again now.
 */
export function useDrift() {
  const [minute, setMinute] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setMinute((m) => m + 1), DRIFT_RELOAD_MS);
    return () => clearInterval(timer);
  }, []);
  const { data: report, reload } = useLiveResource('/api/drift', minute);
  const [records, setRecords] = useState({});
  useEffect(() => {
    if (!report) return undefined;
    let live = true;
    const listed = report.tasks.slice(0, LISTED);
    Promise.all(
      listed.map((d) => api('GET', `/api/catalog${catalogQuery({ id: d.id, sessionId: d.sessionId, limit: 1 })}`).catch(() => null)),
    ).then((pages) => {
      const found = {};
      for (const page of pages) {
        const entry = page?.entries[0];
        if (entry) found[`${entry.sessionId}/${entry.record.id}`] = entry.record;
      }
      if (live) setRecords(found);
    });
    return () => {
      live = false;
    };
  }, [report]);
  return { report, records, reload };
}

/** The banner over `report` (see useDrift); `onChanged` hears of a re-anchor. */
export function DriftBanner({ report, records, onChanged }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  if (!report || report.tasks.length === 0) return null;
  const run = (method, path, body) => {
    setBusy(true);
    setError(null);
    api(method, path, body)
      .then(
        () => onChanged(),
        (e) => setError(e),
      )
      .finally(() => setBusy(false));
  };
  const count = report.tasks.length;
  const versions =
    report.writtenWith && report.writtenWith !== report.tzdata
      ? ` (written with ${report.writtenWith}, now ${report.tzdata})`
      : ` (${report.tzdata})`;
  return html`<section class="drift-banner" aria-labelledby="drift-heading">
    <h2 id="drift-heading">${count === 1 ? '1 task has drifted' : `${count} tasks have drifted`}</h2>
    <p>
      The time-zone data${versions} no longer yields ${count === 1 ? 'this target' : 'these targets'}: each would fire at a time its rule
      does not give. Re-anchoring moves a task to its rule's next occurrence.
    </p>
    <ul class="drift-list">
      ${report.tasks.slice(0, LISTED).map((d) => {
        const record = records[`${d.sessionId}/${d.id}`];
        const zone = record ? recordZone(record) : 'UTC';
        const title = record?.title ?? d.id;
        return html`<li key=${`${d.sessionId}/${d.id}`} class="drift-item">
          <div>
            <strong>${title}</strong> <span class="muted">Session <code>${d.sessionId}</code></span>
            <div>Stored target <span class="when">${formatInZone(d.scheduledAt, zone)}</span>, the rule gives <span class="when">${formatInZone(d.occurrence, zone)}</span></div>
          </div>
          <button type="button" disabled=${busy} aria-label=${`Re-anchor ${title}`} onClick=${() => run('POST', `${taskPath(d.sessionId, d.id)}/reanchor`)}>Re-anchor</button>
        </li>`;
      })}
    </ul>
    ${count > LISTED && html`<p class="muted">and ${count - LISTED} more.</p>`}
    <button type="button" class="primary" disabled=${busy} onClick=${() => run('POST', '/api/reanchor', { all: true })}>Re-anchor all</button>
    <${ErrorNote} error=${error} />
  </section>`;
}
