// The web task page: the Host's clock and connection state, kept current through the live event
// stream, and the tab bar with the registered panels (Tasks, Transcripts, and the Inspector,
// which registers itself). The address names the tab and the open task (route.js). While the
// Host does not answer, a banner says so and the page retries by itself; when the stream is back
// everything is reloaded. In test-clock mode a bar in the header moves the Host's clock. What the
// Host does not announce (a failed delivery attempt) is picked up by `pollVersion`, bumped when
// the test clock moves and, on the system clock, every 15 s.
import { api, listenToEvents } from './api.js';
import { browserZone, formatInZone } from './format.js';
import { html, render, useCallback, useEffect, useRef, useState } from './html.js';
import './inspectorPanel.js';
import { allPanels } from './panels.js';
import { navigate, parseHash } from './route.js';

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

const CONNECTION_WORDS = { connecting: 'connecting…', live: 'live', down: 'disconnected, retrying…' };

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
  const panels = allPanels();
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  const [sessions, setSessions] = useState([]);
  const [catalogVersion, setCatalogVersion] = useState(0);
  const [transcriptVersion, setTranscriptVersion] = useState(0);
  const [historyVersion, setHistoryVersion] = useState(0);
  const [pollVersion, setPollVersion] = useState(0);
  const [flashText, flash] = useState(null);
  const [connection, setConnection] = useState('connecting');
  const { clock, setClock, nowMs } = useHostClock();
  const lastTask = useRef(null);

  const reloadSessions = useCallback(() => api('GET', '/api/sessions').then(setSessions, () => undefined), []);
  const reloadStatus = useCallback(
    () =>
      api('GET', '/api/status').then(
        (s) => setClock({ now: Date.parse(s.now), fetchedAt: Date.now(), testClock: s.testClock }),
        () => undefined,
      ),
    [setClock],
  );

  useEffect(() => {
    const onHash = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    reloadSessions();
    return listenToEvents(
      {
        ready: () => {
          setConnection('live');
          reloadStatus();
          reloadSessions();
          setCatalogVersion((v) => v + 1);
          setHistoryVersion((v) => v + 1);
        },
        'schedule/changed': () => {
          setCatalogVersion((v) => v + 1);
          reloadSessions();
        },
        delivery: () => {
          setTranscriptVersion((v) => v + 1);
          setHistoryVersion((v) => v + 1);
        },
        clock: ({ now }) => {
          setClock((c) => ({ ...c, now: Date.parse(now), fetchedAt: Date.now() }));
          setPollVersion((v) => v + 1);
        },
      },
      { onError: () => setConnection('down') },
    );
  }, [reloadSessions, reloadStatus, setClock]);

  useEffect(() => {
    if (clock.testClock || connection !== 'live') return undefined;
    const timer = setInterval(() => setPollVersion((v) => v + 1), 15_000);
    return () => clearInterval(timer);
  }, [clock.testClock, connection]);

  if (route.tab === 'tasks' && route.taskId) lastTask.current = route.taskId;
  const choose = (tab) =>
    navigate(tab === 'tasks' ? (lastTask.current ? `#/tasks/${encodeURIComponent(lastTask.current)}` : '#/tasks') : `#/${tab}`);
  const failed = (error) => flash(error.code === 'host_unreachable' ? 'The Host does not answer; the page keeps retrying.' : error.message);
  const ctx = { route, sessions, nowMs, catalogVersion, historyVersion, transcriptVersion, pollVersion, flash, failed };
  const current = panels.find((p) => p.id === route.tab) ?? panels[0];

  return html`<header class="top">
      <div class="brand">
        <h1>agent-schedule</h1>
        <span class="muted">reference Host · your zone ${browserZone()}</span>
        <span class=${`live ${connection === 'live' ? 'on' : connection === 'down' ? 'down' : ''}`}>${CONNECTION_WORDS[connection]}</span>
      </div>
      ${clock.testClock && html`<${TestClockBar} nowMs=${nowMs} onError=${failed} />`}
    </header>
    ${connection === 'down' && html`<p class="banner" role="alert">The Host does not answer: disconnected, retrying… Changes made now cannot be sent.</p>`}
    <${TabBar} panels=${panels} current=${current} onChoose=${choose} />
    ${flashText && html`<p class="notice flash" role="status">${flashText} <button type="button" class="link" onClick=${() => flash(null)}>Dismiss</button></p>`}
    <main id=${`panel-${current.id}`} role="tabpanel" aria-labelledby=${`tab-${current.id}`}>${current.render(ctx)}</main>
    <datalist id="zones">${zoneNames().map((z) => html`<option value=${z}></option>`)}</datalist>`;
}

let zones;
function zoneNames() {
  zones ??= ['UTC', ...(Intl.supportedValuesOf?.('timeZone') ?? []).filter((z) => z.includes('/'))];
  return zones;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
