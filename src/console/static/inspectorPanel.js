// The Inspector tab: a live, bounded view of the Host's actor system, whatever its size. It follows
// `/api/inspect/events` (a summary, then updates for the actors in view and a fresh summary at most
// every second) while it is open, and shows the Sessions with the most due work (the rest counted),
// the actor tree of what is in view — the supervisor, those Sessions and the tasks the filter
// selects, at most 100 with the number of the rest — beside the entry stream of those actors. The
// Session field and "Find tasks" (id, title or Session) narrow the view: the stream is reopened
// with `?sessionId=` and `?q=` once typing pauses. Renders are batched, so a burst of updates costs
// one render, and the columns render only for the stream or the clock, not for every change the
// page hears of. "State changes only" keeps the stream to the entries where an actor changed state.
// The status bar shows whether the stream is live and the time-zone data versions (the one in use
// and the one the schedule was written with). On PostgreSQL a cluster view above them lists the
// Hosts sharing the schedule and the shards each holds (clusterView.js); the actor tree is this
// replica's: one supervisor per shard it holds.
import { listenToEvents } from './api.js';
import { ClusterView, useCluster } from './clusterView.js';
import { html, useCallback, useEffect, useMemo, useRef, useSettled, useState } from './html.js';
import { applySnapshot, applyUpdate, EVENTS_KEPT, emptyInspector, readSuperjson, sessionChoices } from './inspectorState.js';
import { InspectorColumns } from './inspectorViews.js';
import { registerPanel } from './panels.js';
import { TzdataStatus, useTzdata } from './tzdataStatus.js';

/** How many Sessions and tasks the view lists. */
const VIEW_SIZE = { sessions: 50, tasks: 100 };
/** How long typing must pause before a filter reopens the stream. */
const TYPING_PAUSE_MS = 300;
/** Updates arriving within this long of each other are rendered together. */
const RENDER_BATCH_MS = 200;
/** How often at most the status bar reloads the time-zone data versions and the cluster while the schedule changes. */
const STATUS_RELOAD_MS = 5_000;
/** A Session id as the Host accepts it (host/sessions/sessionId.ts). */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function useInspectorStream(sessionId, text) {
  const store = useRef(emptyInspector());
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState(false);
  useEffect(() => {
    let timer;
    const changed = () => {
      if (timer === undefined)
        timer = setTimeout(() => {
          timer = undefined;
          setVersion((v) => v + 1);
        }, RENDER_BATCH_MS);
    };
    store.current = emptyInspector();
    setLive(false);
    setVersion((v) => v + 1);
    const query = new URLSearchParams({ limit: String(EVENTS_KEPT), sessions: String(VIEW_SIZE.sessions), tasks: String(VIEW_SIZE.tasks) });
    if (sessionId) query.set('sessionId', sessionId);
    if (text) query.set('q', text);
    const stop = listenToEvents(
      {
        snapshot: (summary) => {
          applySnapshot(store.current, summary);
          // "streaming" and what the snapshot holds show together.
          setLive(true);
          setVersion((v) => v + 1);
        },
        update: (update) => {
          applyUpdate(store.current, update);
          changed();
        },
      },
      { path: `/api/inspect/events?${query}`, parse: readSuperjson, onError: () => setLive(false) },
    );
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [sessionId, text]);
  return { store: store.current, version, live };
}

/** `value`, changing at most once every `ms` (the latest value at the end of each wait). */
function useThrottled(value, ms) {
  const [shown, setShown] = useState(value);
  const last = useRef(Number.NEGATIVE_INFINITY);
  useEffect(() => {
    if (value === shown) return undefined;
    // A new value waits for the rest of the interval since the last one shown, never longer.
    const timer = setTimeout(
      () => {
        last.current = Date.now();
        setShown(value);
      },
      Math.max(0, last.current + ms - Date.now()),
    );
    return () => clearTimeout(timer);
  }, [value, ms, shown]);
  return shown;
}

/** The Inspector tab over the shared page state (it reads the Session ids, `nowMs` and the catalog version). */
export function InspectorPanel({ sessions: known = [], nowMs, catalogVersion = 0 }) {
  const [sessionInput, setSessionInput] = useState('');
  const [textInput, setTextInput] = useState('');
  const [changesOnly, setChangesOnly] = useState(false);
  const typedSession = useSettled(sessionInput.trim(), TYPING_PAUSE_MS);
  // Only a well-formed Session id narrows the view; a half-typed one keeps the last.
  const [sessionId, setSessionId] = useState('');
  useEffect(() => {
    if (typedSession === '' || SESSION_ID.test(typedSession)) setSessionId(typedSession);
  }, [typedSession]);
  const text = useSettled(textInput.trim(), TYPING_PAUSE_MS);
  const { store, version, live } = useInspectorStream(sessionId, text);
  // A burst of deliveries changes the catalog hundreds of times a second: reload now and then.
  const statusVersion = useThrottled(catalogVersion, STATUS_RELOAD_MS);
  const tzdata = useTzdata(statusVersion);
  const cluster = useCluster(statusVersion);
  const choices = useMemo(() => sessionChoices(known, store.summary, sessionId), [known, store.summary, sessionId]);
  const chooseSession = useCallback((id) => {
    setSessionInput(id);
    setSessionId(id);
  }, []);

  return html`<div class="inspector">
    <div class="inspector-bar" role="group" aria-label="Inspector filters">
      <span class="filter">
        <label for="inspector-session">Session</label>
        <input
          id="inspector-session"
          list="inspector-session-choices"
          placeholder="All Sessions"
          autocomplete="off"
          spellcheck="false"
          value=${sessionInput}
          onInput=${(e) => setSessionInput(e.currentTarget.value)}
        />
        <datalist id="inspector-session-choices">
          ${choices.map((id) => html`<option key=${id} value=${id}></option>`)}
        </datalist>
      </span>
      <span class="filter">
        <label for="inspector-text">Find tasks</label>
        <input
          id="inspector-text"
          type="search"
          placeholder="id, title or Session"
          autocomplete="off"
          value=${textInput}
          onInput=${(e) => setTextInput(e.currentTarget.value)}
        />
      </span>
      <label class="check">
        <input type="checkbox" checked=${changesOnly} onChange=${(e) => setChangesOnly(e.currentTarget.checked)} />
        State changes only
      </label>
      <span class=${`live ${live ? 'on' : ''}`}>${live ? 'streaming' : 'connecting…'}</span>
      <${TzdataStatus} versions=${tzdata} />
    </div>
    <${ClusterView} report=${cluster} />
    <${InspectorColumns}
      store=${store}
      version=${version}
      nowMs=${nowMs}
      sessionId=${sessionId}
      text=${text}
      changesOnly=${changesOnly}
      onChoose=${chooseSession}
    />
  </div>`;
}

registerPanel({
  id: 'inspector',
  label: 'Inspector',
  render: (ctx) => html`<${InspectorPanel} sessions=${ctx.sessions} nowMs=${ctx.nowMs} catalogVersion=${ctx.catalogVersion} />`,
});
