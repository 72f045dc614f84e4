// The Inspector tab: a live view of the Host's actor system. It follows `/api/inspect/events`
// (a snapshot, then one update per inspector entry) while it is open, shows the actor tree beside
// the entry stream, and narrows both to one Session on request (the stream is reopened with
// `?sessionId=`). "State changes only" keeps the stream to the entries where an actor changed
// state. The status bar shows whether the stream is live and the time-zone data versions (the
// one in use and the one the schedule was written with). On PostgreSQL a cluster view above them
// lists the Hosts sharing the schedule and the shards each holds (clusterView.js); the actor tree
// is this replica's: one supervisor per shard it holds.
import { listenToEvents } from './api.js';
import { ClusterView, useCluster } from './clusterView.js';
import { html, useEffect, useRef, useState } from './html.js';
import { applySnapshot, applyUpdate, EVENTS_KEPT, emptyInspector, readSuperjson, sessionChoices } from './inspectorState.js';
import { ActorTree, EventStream } from './inspectorViews.js';
import { registerPanel } from './panels.js';
import { TzdataStatus, useTzdata } from './tzdataStatus.js';

function useInspectorStream(sessionId) {
  const store = useRef(emptyInspector());
  const [, setVersion] = useState(0);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const changed = () => setVersion((v) => v + 1);
    store.current = emptyInspector();
    setLive(false);
    changed();
    const query = new URLSearchParams({ limit: String(EVENTS_KEPT) });
    if (sessionId) query.set('sessionId', sessionId);
    return listenToEvents(
      {
        snapshot: (view) => {
          applySnapshot(store.current, view);
          setLive(true);
          changed();
        },
        update: (update) => {
          applyUpdate(store.current, update);
          changed();
        },
      },
      { path: `/api/inspect/events?${query}`, parse: readSuperjson, onError: () => setLive(false) },
    );
  }, [sessionId]);
  return { store: store.current, live };
}

/** The Inspector tab over the shared page state (it reads the Session ids, `nowMs` and the catalog version). */
export function InspectorPanel({ sessions: known, nowMs, catalogVersion = 0 }) {
  const [sessionId, setSessionId] = useState('');
  const [changesOnly, setChangesOnly] = useState(false);
  const { store, live } = useInspectorStream(sessionId);
  const tzdata = useTzdata(catalogVersion);
  const cluster = useCluster(catalogVersion);
  const events = changesOnly ? store.events.filter((entry) => entry.type === 'snapshot') : store.events;
  const sessions = sessionChoices(
    known.map((id) => ({ sessionId: id })),
    store.actors,
    sessionId,
  );

  return html`<div class="inspector">
    <div class="inspector-bar" role="group" aria-label="Inspector filters">
      <span class="filter">
        <label for="inspector-session">Session</label>
        <select id="inspector-session" value=${sessionId} onChange=${(e) => setSessionId(e.currentTarget.value)}>
          <option value="">All Sessions</option>
          ${sessions.map((id) => html`<option key=${id} value=${id}>${id}</option>`)}
        </select>
      </span>
      <label class="check">
        <input type="checkbox" checked=${changesOnly} onChange=${(e) => setChangesOnly(e.currentTarget.checked)} />
        State changes only
      </label>
      <span class=${`live ${live ? 'on' : ''}`}>${live ? 'streaming' : 'connecting…'}</span>
      <${TzdataStatus} versions=${tzdata} />
    </div>
    <${ClusterView} report=${cluster} />
    <div class="inspector-cols">
      <section class="card" aria-labelledby="actors-heading">
        <h2 id="actors-heading">Actors <span class="count">${store.actors.size}</span></h2>
        <${ActorTree} actors=${store.actors} nowMs=${nowMs} sessionId=${sessionId} />
      </section>
      <section class="card" aria-labelledby="entries-heading">
        <h2 id="entries-heading">Events <span class="count">${events.length}, newest first</span></h2>
        <${EventStream} events=${events} />
      </section>
    </div>
  </div>`;
}

registerPanel({
  id: 'inspector',
  label: 'Inspector',
  render: (ctx) => html`<${InspectorPanel} sessions=${ctx.sessions} nowMs=${ctx.nowMs} catalogVersion=${ctx.catalogVersion} />`,
});
