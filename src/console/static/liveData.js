// How the page keeps what it shows current while the schedule changes many times a second: change
// events are coalesced (`throttle`: at most one reaction per interval, the last one never lost),
// and a resource (`useLiveResource`) is fetched at once when the controls ask for another one,
// and again after a change — but never more than once per interval, and never while its own
// request is still out. Each request is tagged with the path it was made for and its answer is
// applied only when that is still the path the controls ask for; an answer is never dropped
// because a newer change arrived meanwhile (it is still right for the controls, and the next
// coalesced refresh follows), so under a steady stream of changes the page still settles.
import { api } from './api.js';
import { useEffect, useRef, useState } from './html.js';

/** The interval between two refreshes caused by changes. */
export const REFRESH_GAP_MS = 1_000;

/**
 * `fn` called at most once per `gapMs`: a call within the gap runs once at its end. Returns the
 * throttled function; its `cancel()` drops a call waiting for the gap.
 */
export function throttle(fn, gapMs = REFRESH_GAP_MS) {
  let last = Number.NEGATIVE_INFINITY;
  let timer = null;
  const run = () => {
    timer = null;
    last = performance.now();
    fn();
  };
  const call = () => {
    if (timer !== null) return;
    const wait = last + gapMs - performance.now();
    if (wait <= 0) run();
    else timer = setTimeout(run, wait);
  };
  call.cancel = () => {
    clearTimeout(timer);
    timer = null;
  };
  return call;
}

/**
 * The refresh loop of one resource; `apply(state)` receives `{data, error, path, meta}` for the
 * path the controls ask for (`meta` is what was handed to `want` with it).
 */
export function createRefresher(apply, { gapMs = REFRESH_GAP_MS, load = (path) => api('GET', path) } = {}) {
  let wanted = null;
  let wantedMeta;
  let shown = null;
  let failed = null;
  let dirty = false;
  let urgent = false;
  let lastStart = Number.NEGATIVE_INFINITY;
  let timer = null;
  let stopped = false;
  const inFlight = new Set();

  function start(path) {
    const meta = wantedMeta;
    inFlight.add(path);
    lastStart = performance.now();
    dirty = false;
    urgent = false;
    load(path)
      .then(
        (data) => {
          if (stopped || path !== wanted) return;
          shown = path;
          failed = null;
          apply({ data, error: null, path, meta });
        },
        (error) => {
          if (stopped || path !== wanted) return;
          // Tried again on the next change (the event stream's `ready` after an outage is one).
          failed = path;
          apply((s) => ({ ...s, error, errorPath: path }));
        },
      )
      .finally(() => {
        inFlight.delete(path);
        pump();
      });
  }

  function pump() {
    if (stopped || wanted === null || inFlight.has(wanted)) return;
    if (shown !== wanted && failed !== wanted) return start(wanted);
    if (!dirty) return;
    const wait = urgent ? 0 : lastStart + gapMs - performance.now();
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = null;
        pump();
      }, wait);
      return;
    }
    failed = null;
    start(wanted);
  }

  return {
    /** The controls now ask for `path` (null: nothing); `meta` comes back with its answer. */
    want(path, meta) {
      if (path === wanted) return;
      wanted = path;
      wantedMeta = meta;
      if (path !== failed) failed = null;
      pump();
    },
    /** Something the resource shows may have changed. */
    changed() {
      dirty = true;
      pump();
    },
    /** The page itself changed it (an operation): read it again without waiting for the interval. */
    reload() {
      dirty = true;
      urgent = true;
      clearTimeout(timer);
      timer = null;
      pump();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * The resource at `path` (null: none), reloaded after `version` changes, coalesced as above:
 * `{data, error, path, meta, reload}` where `path` names what `data` answers (compare it with the
 * path asked for to tell whether the answer on screen is the one the controls want) and
 * `reload()` reads it again at once.
 */
export function useLiveResource(path, version, meta, options) {
  const [state, setState] = useState({ data: null, error: null, path: null, meta: undefined });
  const refresher = useRef(null);
  refresher.current ??= createRefresher(setState, options);
  useEffect(() => () => refresher.current.stop(), []);
  useEffect(() => refresher.current.want(path, meta), [path]);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else refresher.current.changed();
  }, [version]);
  const reload = useRef(() => refresher.current.reload()).current;
  return { ...state, reload };
}
