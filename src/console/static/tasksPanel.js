// The Tasks tab: the catalog, one page at a time, with the open task's detail beside it (over it
// on a narrow screen) and the create form. The open task comes from the address
// (`#/tasks/sch_12`) and is read on its own, so a link or a reload opens it whatever page the
// catalog shows. Closing the detail puts the focus back on the row that opened it. Over the
// catalog, the drift banner lists the tasks whose target the time-zone data no longer yields.
// The list and the detail follow the catalog version (bumped at most once a second by app.js),
// each through a coalesced loader (liveData.js): an answer is shown only while it matches the
// controls, so the rows never disagree with the filters, and the next refresh follows. An
// operation on a row (pause, resume, run now, retry now), a bulk action or one in the detail
// reloads the list and the detail at once. Ticked rows (for a bulk action) are forgotten when the
// filters change. The drift report is read on its own, slower timer (driftBanner.js).
import { catalogQuery } from './api.js';
import { Catalog, taskKey } from './catalog.js';
import { CreateForm } from './createForm.js';
import { DriftBanner, useDrift } from './driftBanner.js';
import { html, useCallback, useEffect, useRef, useState } from './html.js';
import { useLiveResource } from './liveData.js';
import { problemOf } from './problems.js';
import { navigate, taskHref, transcriptHref } from './route.js';
import { TaskDetail } from './taskDetail.js';

const PAGE_SIZE = 50;
const NO_FILTERS = { text: '', sessionId: '', kind: '', status: '', drifted: false, sort: 'next', limit: PAGE_SIZE };

/** The entry of task `id` (any Session), `undefined` while loading, `null` when there is none. */
function useTask(id, version) {
  const path = id ? `/api/catalog${catalogQuery({ id, limit: 1 })}` : null;
  const shown = useLiveResource(path, version);
  if (path === null || shown.path !== path || !shown.data) return { entry: undefined, reload: shown.reload };
  return { entry: shown.data.entries[0] ?? null, reload: shown.reload };
}

/** The Tasks tab over the shared page state. */
export function TasksPanel(ctx) {
  const { route, nowMs, catalogVersion, historyVersion, flash } = ctx;
  const [query, setQuery] = useState(NO_FILTERS);
  const [cursors, setCursors] = useState([undefined]);
  const [pageIndex, setPageIndex] = useState(0);
  const [ticked, setTicked] = useState(() => new Map());
  const path = `/api/catalog${catalogQuery({ ...query, cursor: cursors[pageIndex] })}`;
  const shown = useLiveResource(path, catalogVersion, pageIndex);
  // The page on screen is not yet the one asked for (a turn or a new query is loading).
  const loading = shown.path !== path;
  const page = shown.data;
  const error = shown.error && shown.errorPath === path ? shown.error : null;
  const shownIndex = shown.meta ?? 0;
  const drift = useDrift();
  const drifted = new Set((drift.report?.tasks ?? []).map((d) => `${d.sessionId}/${d.id}`));
  const selectedId = route.taskId;
  const task = useTask(selectedId, catalogVersion);
  const { entry } = task;
  const opener = useRef(null);

  const changeQuery = useCallback((patch) => {
    setQuery((q) => ({ ...q, ...patch }));
    setCursors([undefined]);
    setPageIndex(0);
    setTicked(new Map());
  }, []);
  // Pages turn from the page on screen, and only once it is the one asked for.
  const turnPage = (step) => {
    if (loading) return;
    if (step > 0 && page?.nextCursor !== undefined) {
      setCursors((c) => [...c.slice(0, pageIndex + 1), page.nextCursor]);
      setPageIndex(pageIndex + 1);
    } else if (step < 0 && pageIndex > 0) setPageIndex(pageIndex - 1);
  };
  // A page left empty by deletions goes back one page.
  useEffect(() => {
    if (!loading && page && page.entries.length === 0 && pageIndex > 0) setPageIndex(pageIndex - 1);
  }, [page, pageIndex, loading]);

  const tick = useCallback((entry, on) => {
    setTicked((t) => {
      const next = new Map(t);
      if (on) next.set(taskKey(entry), { sessionId: entry.sessionId, id: entry.record.id });
      else next.delete(taskKey(entry));
      return next;
    });
  }, []);
  const tickPage = useCallback((entries, on) => {
    setTicked((t) => {
      const next = new Map(t);
      for (const entry of entries) {
        if (on) next.set(taskKey(entry), { sessionId: entry.sessionId, id: entry.record.id });
        else next.delete(taskKey(entry));
      }
      return next;
    });
  }, []);

  const close = () => {
    const back = opener.current;
    navigate(taskHref(null));
    // Back to the row that opened the detail (or the search box when it is gone).
    requestAnimationFrame(() => {
      const row = back && document.querySelector(`[data-open-task="${CSS.escape(back)}"]`);
      (row ?? document.getElementById('catalog-search'))?.focus();
    });
  };
  const deleted = (text) => {
    flash(text);
    close();
  };
  const reload = () => {
    shown.reload();
    task.reload();
  };
  const operated = (text) => {
    flash(text);
    reload();
  };
  const refused = (e) => {
    const p = problemOf(e);
    flash(`${p.text} (${p.code})`);
    reload();
  };
  const open = (_event, id) => {
    opener.current = id;
  };

  return html`<div class=${`tasks ${selectedId ? 'with-detail' : ''}`}>
    <div class="catalog-col">
      <${DriftBanner}
        report=${drift.report}
        records=${drift.records}
        onChanged=${() => {
          drift.reload();
          reload();
        }}
      />
      <${Catalog}
        page=${page}
        error=${error}
        query=${query}
        pageIndex=${shownIndex}
        loading=${loading}
        selectedId=${selectedId}
        drifted=${drifted}
        ticked=${ticked}
        nowMs=${nowMs}
        onQuery=${changeQuery}
        onPage=${turnPage}
        onOpen=${open}
        onTick=${tick}
        onTickPage=${tickPage}
        onClearTicks=${() => setTicked(new Map())}
        onBulkDone=${reload}
        onActionDone=${operated}
        onActionError=${refused}
      />
      <${CreateForm} onCreated=${(_sessionId, view) => navigate(taskHref(view.id))} />
    </div>
    ${
      selectedId &&
      html`<div class="side-col">
        ${
          entry
            ? html`<${TaskDetail}
              entry=${entry}
              nowMs=${nowMs}
              historyVersion=${historyVersion}
              transcriptHref=${transcriptHref}
              onDeleted=${deleted}
              onClose=${close}
              onChanged=${reload}
            />`
            : html`<section class="card detail placeholder" aria-label="Task detail">
              <p class="empty">${entry === null ? `There is no task ${selectedId}.` : 'Loading the task…'}</p>
              <button type="button" onClick=${close}>Close</button>
            </section>`
        }
      </div>`
    }
  </div>`;
}
