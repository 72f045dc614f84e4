// The Tasks tab: the catalog, one page at a time, with the open task's detail beside it (over it
// on a narrow screen) and the create form. The open task comes from the address
// (`#/tasks/sch_12`) and is read on its own, so a link or a reload opens it whatever page the
// catalog shows. Closing the detail puts the focus back on the row that opened it. Over the
// catalog, the drift banner lists the tasks whose target the time-zone data no longer yields.
// An operation on a row (pause, resume, run now, retry now) is reported in the page's notice and
// reloads the list and the detail at once, before the change event arrives; so does one in the
// detail. A failed delivery attempt commits nothing and sends no change event, so the list and the
// detail are also reloaded when the test clock moves and, on the system clock, every 15 s.
import { api, catalogQuery } from './api.js';
import { Catalog } from './catalog.js';
import { CreateForm } from './createForm.js';
import { DriftBanner, useDrift } from './driftBanner.js';
import { html, useCallback, useEffect, useRef, useState } from './html.js';
import { problemOf } from './problems.js';
import { navigate, taskHref, transcriptHref } from './route.js';
import { TaskDetail } from './taskDetail.js';

const PAGE_SIZE = 50;
const NO_FILTERS = { text: '', sessionId: '', kind: '', status: '', drifted: false, sort: 'next', limit: PAGE_SIZE };

/**
 * One catalog page for `query` from the cursor of page `index`, reloaded when `version` changes.
 * Until it arrives the last page stays shown, with the query, cursor and index it was asked for,
 * so the pager can name the rows on screen and wait for the page asked for.
 */
function useCatalogPage(query, cursor, version, index) {
  const [state, setState] = useState({ page: null, error: null, query: null, cursor: undefined, index: 0 });
  useEffect(() => {
    let live = true;
    api('GET', `/api/catalog${catalogQuery({ ...query, cursor })}`).then(
      (page) => live && setState({ page, error: null, query, cursor, index }),
      (error) => live && setState((s) => ({ ...s, error })),
    );
    return () => {
      live = false;
    };
  }, [query, cursor, version]);
  return state;
}

/** The entry of task `id` (any Session), `undefined` while loading, `null` when there is none. */
function useTask(id, version) {
  const [entry, setEntry] = useState(undefined);
  useEffect(() => {
    if (!id) return setEntry(undefined);
    let live = true;
    api('GET', `/api/catalog${catalogQuery({ id, limit: 1 })}`).then(
      (page) => live && setEntry(page.entries[0] ?? null),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [id, version]);
  return entry?.record.id === id || entry === null ? entry : undefined;
}

/** The Tasks tab over the shared page state. */
export function TasksPanel(ctx) {
  const { route, sessions, nowMs, catalogVersion, historyVersion, pollVersion = 0, flash } = ctx;
  const [query, setQuery] = useState(NO_FILTERS);
  const [cursors, setCursors] = useState([undefined]);
  const [pageIndex, setPageIndex] = useState(0);
  // Bumped after a re-anchor so the page reloads without waiting for the change event.
  const [ownVersion, setOwnVersion] = useState(0);
  const version = catalogVersion + ownVersion;
  const shown = useCatalogPage(query, cursors[pageIndex], version + pollVersion, pageIndex);
  const { page, error } = shown;
  // The page on screen is not yet the one asked for (a turn or a new query is loading).
  const loading = shown.query !== query || shown.cursor !== cursors[pageIndex] || shown.index !== pageIndex;
  const drift = useDrift(version);
  const drifted = new Set((drift.report?.tasks ?? []).map((d) => `${d.sessionId}/${d.id}`));
  const selectedId = route.taskId;
  const entry = useTask(selectedId, version + pollVersion);
  const opener = useRef(null);

  const changeQuery = useCallback((patch) => {
    setQuery((q) => ({ ...q, ...patch }));
    setCursors([undefined]);
    setPageIndex(0);
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
  const reload = () => setOwnVersion((v) => v + 1);
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
      <${DriftBanner} report=${drift.report} records=${drift.records} onChanged=${reload} />
      <${Catalog}
        page=${page}
        error=${error}
        query=${query}
        sessions=${sessions}
        pageIndex=${shown.index}
        loading=${loading}
        selectedId=${selectedId}
        drifted=${drifted}
        nowMs=${nowMs}
        onQuery=${changeQuery}
        onPage=${turnPage}
        onOpen=${open}
        onActionDone=${operated}
        onActionError=${refused}
      />
      <${CreateForm} sessions=${sessions} onCreated=${(_sessionId, view) => navigate(taskHref(view.id))} />
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
