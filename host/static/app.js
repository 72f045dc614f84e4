// The web task page: loads the catalog and the Host's clock, keeps them current through the
// live event stream, and renders the tab bar with the registered panels (Tasks, Transcripts,
// and the Inspector, which registers itself). In test-clock mode a bar in the header moves the
// Host's clock.
import { api, listenToEvents } from './api.js';
import { browserZone, formatInZone } from './format.js';
import { html, render, useCallback, useEffect, useState } from './html.js';
import './inspectorPanel.js';
import { allPanels } from './panels.js';

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

function TestClockBar({ nowMs }) {
  const advance = (ms) => api('POST', '/api/test/clock', { advanceMs: ms });
  return html`<div class="test-clock" role="group" aria-label="Test clock">
    <span>Test clock: <strong>${formatInZone(new Date(nowMs).toISOString(), browserZone())}</strong></span>
    <button type="button" onClick=${() => advance(60_000)}>+1 min</button>
    <button type="button" onClick=${() => advance(3_600_000)}>+1 h</button>
    <button type="button" onClick=${() => advance(86_400_000)}>+1 day</button>
  </div>`;
}

function App() {
  const panels = allPanels();
  const [tab, setTab] = useState('tasks');
  const [catalog, setCatalog] = useState([]);
  const [selected, select] = useState(null);
  const [transcriptSession, setTranscriptSession] = useState(null);
  const [transcriptVersion, setTranscriptVersion] = useState(0);
  const [historyVersion, setHistoryVersion] = useState(0);
  const [flashText, flash] = useState(null);
  const [connected, setConnected] = useState(false);
  const { clock, setClock, nowMs } = useHostClock();

  const reloadCatalog = useCallback(() => api('GET', '/api/catalog').then(setCatalog, () => undefined), []);
  const reloadStatus = useCallback(
    () => api('GET', '/api/status').then((s) => setClock({ now: Date.parse(s.now), fetchedAt: Date.now(), testClock: s.testClock })),
    [setClock],
  );

  useEffect(() => {
    reloadCatalog();
    reloadStatus();
    return listenToEvents({
      ready: () => {
        setConnected(true);
        reloadCatalog();
      },
      'schedule/changed': () => reloadCatalog(),
      delivery: () => {
        setTranscriptVersion((v) => v + 1);
        setHistoryVersion((v) => v + 1);
      },
      clock: ({ now }) => setClock((c) => ({ ...c, now: Date.parse(now), fetchedAt: Date.now() })),
    });
  }, [reloadCatalog, reloadStatus, setClock]);

  const openTranscript = (sessionId) => {
    setTranscriptSession(sessionId);
    setTab('transcripts');
  };
  const ctx = { catalog, selected, select, nowMs, historyVersion, transcriptSession, transcriptVersion, openTranscript, flash };
  const current = panels.find((p) => p.id === tab) ?? panels[0];

  return html`<header class="top">
      <div class="brand">
        <h1>agent-schedule</h1>
        <span class="muted">reference Host · your zone ${browserZone()}</span>
        <span class=${`live ${connected ? 'on' : ''}`}>${connected ? 'live' : 'connecting…'}</span>
      </div>
      ${clock.testClock && html`<${TestClockBar} nowMs=${nowMs} />`}
    </header>
    <nav class="tabs" role="tablist" aria-label="Views">
      ${panels.map(
        (p) => html`<button
          role="tab"
          id=${`tab-${p.id}`}
          aria-selected=${p.id === current.id ? 'true' : 'false'}
          aria-controls=${`panel-${p.id}`}
          onClick=${() => setTab(p.id)}
        >
          ${p.label}
        </button>`,
      )}
    </nav>
    ${flashText && html`<p class="notice flash" role="status">${flashText} <button class="link" onClick=${() => flash(null)}>Dismiss</button></p>`}
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
