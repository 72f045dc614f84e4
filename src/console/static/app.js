// The web task page: the Host's clock and connection state, kept current through the live event
// stream, and the tab bar with the registered panels (Tasks, Transcripts, and the Inspector,
// which registers itself). The address names the tab and the open task (route.js). While the
// Host does not answer, a banner says so and the page retries by itself; when the stream is back
// everything is reloaded. In test-clock mode a bar in the header moves the Host's clock. A tab
// whose data the Host does not give (`/api/status` says `transcripts: false` or `inspector: false`)
// is not shown.
// The schedule may change many times a second: the events only mark what changed, and at most
// once a second (liveData.js) the page takes the marks — the catalog version (`schedule/changed`,
// and a clock move, which turns tasks overdue), the history and transcript versions (`delivery`)
// and the clock — in one render. The Session list is read on connecting and every minute. What the
// Host does not announce is picked up by a catalog version bump every 15 s on the system clock.
// "live" is shown only while the stream is open and the Host answers requests.
import { api, listenToEvents, onAnswering } from './api.js';
import { browserZone, formatInZone } from './format.js';
import { html, render, useCallback, useEffect, useMemo, useRef, useState } from './html.js';
import './inspectorPanel.js';
import { throttle } from './liveData.js';
import { allPanels } from './panels.js';
import { navigate, parseHash } from './route.js';

/** How often the Session list is read again while the stream is open. */
const SESSIONS_RELOAD_MS = 60_000;

function useHostClock() {
  const [clock, setClock] = useState({ now: Date.now(), fetchedAt: Date.now(), testClock: false });
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 15_000);
    return () => clearInterval(timer);
  }, []);
  const nowMs = clock.testClock ? clock.now : clock.now + (Date.now() - clock.fetchedAt);
  return { clock, setClock, nowMs };
}

function TestClockBar({ nowMs, onError }) {
  const advance = (ms) => api('POST', '/api/test/clock', { advanceMs: ms }).catch(onError);
  return html`<div class="test-clock" role="group" aria-label="Test clock">
    <span>Test clock: <strong>${formatInZone(new Date(nowMs).toISOString(), browserZone())}</strong></span>
    <button type="button" onClick=${() => advance(60_000)}>+1 min</button>
    <button type="button" onClick=${() => advance(3_600_000)}>+1 h</button>
    <button type="button" onClick=${() => advance(86_400_000)}>+1 day</button>
  </div>`;
}

const CONNECTION_WORDS = {
  connecting: 'connecting…',
  live: 'live',
  down: 'disconnected, retrying…',
  failing: 'not answering, retrying…',
};

/**
 * The tab bar: one tab stop, arrow keys (and Home/End) move between the tabs. A key chooses the
 * next tab, and the focus moves to it once it is shown selected (the address changes first), so
 * the focused tab is always the selected one.
 */
function TabBar({ panels, current, onChoose }) {
  const list = useRef(null);
  const focusNext = useRef(null);
  useEffect(() => {
    if (focusNext.current !== current.id) return;
    focusNext.current = null;
    list.current?.querySelector(`#tab-${current.id}`)?.focus();
  }, [current.id]);
  const onKeyDown = (event) => {
    const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const index = panels.findIndex((p) => p.id === current.id);
    const move = moves[event.key];
    const next = Number.isFinite(move) ? (index + move + panels.length) % panels.length : move < 0 ? 0 : panels.length - 1;
    const tab = panels[next].id;
    if (tab === current.id) {
      // Already selected: nothing will render, so the focus moves now and no move waits.
      list.current?.querySelector(`#tab-${tab}`)?.focus();
      return;
    }
    focusNext.current = tab;
    onChoose(tab);
  };
  return html`<nav class="tabs" aria-label="Views">
    <div role="tablist" aria-label="Views" ref=${list} onKeyDown=${onKeyDown}>
      ${panels.map(
        (p) => html`<button
          type="button"
          role="tab"
          id=${`tab-${p.id}`}
          aria-selected=${p.id === current.id ? 'true' : 'false'}
          aria-controls=${`panel-${p.id}`}
          tabindex=${p.id === current.id ? '0' : '-1'}
          onClick=${() => onChoose(p.id)}
        >
          ${p.label}
        </button>`,
      )}
    </div>
  </nav>`;
}

function App() {
  const [features, setFeatures] = useState({});
  const panels = allPanels().filter((p) => features[p.id] !== false);
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  const [sessions, setSessions] = useState([]);
  const [catalogVersion, setCatalogVersion] = useState(0);
  const [transcriptVersion, setTranscriptVersion] = useState(0);
  const [historyVersion, setHistoryVersion] = useState(0);
  const [flashText, flash] = useState(null);
  const [stream, setStream] = useState('connecting');
  const [answering, setAnswering] = useState(true);
  const { clock, setClock, nowMs } = useHostClock();
  const lastTask = useRef(null);
  const marks = useRef({ changed: false, delivered: false, now: null });

  const reloadSessions = useCallback(() => api('GET', '/api/sessions').then(setSessions, () => undefined), []);
  const reloadStatus = useCallback(
    () =>
      api('GET', '/api/status').then(
        (s) => {
          setClock({ now: Date.parse(s.now), fetchedAt: Date.now(), testClock: s.testClock });
          setFeatures({ transcripts: s.transcripts, inspector: s.inspector });
        },
        () => undefined,
      ),
    [setClock],
  );
  // One render a second at most, whatever the rate of events.
  const takeMarks = useMemo(
    () =>
      throttle(() => {
        const { changed, delivered, now } = marks.current;
        marks.current = { changed: false, delivered: false, now: null };
        if (now !== null) setClock((c) => ({ ...c, now, fetchedAt: Date.now() }));
        if (changed) setCatalogVersion((v) => v + 1);
        if (delivered) {
          setTranscriptVersion((v) => v + 1);
          setHistoryVersion((v) => v + 1);
        }
      }),
    [setClock],
  );

  useEffect(() => {
    const onHash = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => onAnswering(setAnswering), []);

  useEffect(() => {
    const stop = listenToEvents(
      {
        ready: () => {
          setStream('live');
          reloadStatus();
          reloadSessions();
          setCatalogVersion((v) => v + 1);
          setHistoryVersion((v) => v + 1);
          setTranscriptVersion((v) => v + 1);
        },
        'schedule/changed': () => {
          marks.current.changed = true;
          takeMarks();
        },
        delivery: () => {
          marks.current.delivered = true;
          takeMarks();
        },
        clock: ({ now }) => {
          marks.current.now = Date.parse(now);
          marks.current.changed = true;
          takeMarks();
        },
      },
      { onError: () => setStream('down') },
    );
    return () => {
      stop();
      takeMarks.cancel();
    };
  }, [reloadSessions, reloadStatus, takeMarks]);

  useEffect(() => {
    if (stream !== 'live') return undefined;
    const timer = setInterval(reloadSessions, SESSIONS_RELOAD_MS);
    return () => clearInterval(timer);
  }, [stream, reloadSessions]);

  useEffect(() => {
    if (clock.testClock || stream !== 'live') return undefined;
    const timer = setInterval(() => setCatalogVersion((v) => v + 1), 15_000);
    return () => clearInterval(timer);
  }, [clock.testClock, stream]);

  if (route.tab === 'tasks' && route.taskId) lastTask.current = route.taskId;
  const choose = (tab) =>
    navigate(tab === 'tasks' ? (lastTask.current ? `#/tasks/${encodeURIComponent(lastTask.current)}` : '#/tasks') : `#/${tab}`);
  const failed = (error) => flash(error.code === 'host_unreachable' ? 'The Host does not answer; the page keeps retrying.' : error.message);
  const ctx = { route, sessions, nowMs, catalogVersion, historyVersion, transcriptVersion, flash, failed };
  const current = panels.find((p) => p.id === route.tab) ?? panels[0];
  const connection = stream === 'live' && !answering ? 'failing' : stream;

  return html`<header class="top">
      <div class="brand">
        <h1>agent-schedule</h1>
        <span class="muted">reference Host · your zone ${browserZone()}</span>
        <span class=${`live ${connection === 'live' ? 'on' : connection === 'connecting' ? '' : 'down'}`}>${CONNECTION_WORDS[connection]}</span>
      </div>
      ${clock.testClock && html`<${TestClockBar} nowMs=${nowMs} onError=${failed} />`}
    </header>
    <${TabBar} panels=${panels} current=${current} onChoose=${choose} />
    <main id="main">
      ${stream === 'down' && html`<p class="banner" role="alert">The Host does not answer: disconnected, retrying… Changes made now cannot be sent.</p>`}
      ${flashText && html`<p class="notice flash" role="status">${flashText} <button type="button" class="link" onClick=${() => flash(null)}>Dismiss</button></p>`}
      <div id=${`panel-${current.id}`} class="tabpanel" role="tabpanel" aria-labelledby=${`tab-${current.id}`}>${current.render(ctx)}</div>
      ${ZONE_LIST}
    </main>`;
}

/** The zones the forms' zone fields offer; one element, so the page's renders never diff its options again. */
function ZoneList() {
  return html`<datalist id="zones">${zoneNames().map((z) => html`<option value=${z}></option>`)}</datalist>`;
}
const ZONE_LIST = html`<${ZoneList} />`;

let zones;
function zoneNames() {
  zones ??= ['UTC', ...(Intl.supportedValuesOf?.('timeZone') ?? []).filter((z) => z.includes('/'))];
  return zones;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
