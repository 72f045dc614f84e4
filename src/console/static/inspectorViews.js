// The Inspector tab's views: the Sessions with the most due work (a bounded list with the number
// of the rest; choosing one narrows the view to it); the actor tree of what is in view
// (supervisor → Session actors → task actors, with the effects each runs), every actor with its
// state and last event and each task with its title and next target, under a line saying how many
// of the selected tasks it shows; and the entry stream, newest first. An actor's line and an
// entry's row render again only when their actor or entry changed (Lines, Rows), so a burst of
// updates to a few actors re-renders those few, not the whole view.
import { Component } from 'preact';
import { browserZone, formatInZone, relative, wallReading } from './format.js';
import { html } from './html.js';
import { actorForest, actorLabel, entryText, stateText } from './inspectorState.js';

/** How many children of one actor are listed (a Session may have many tasks). */
const CHILDREN_SHOWN = 100;

/** The browser's zone, read once: reading it builds a formatter, and a render would read it often. */
let zoneRead;
const zoneOnce = () => {
  zoneRead ??= browserZone();
  return zoneRead;
};

const STATUS_WORDS = { done: 'done', error: 'failed', stopped: 'stopped' };

/** The parts that are present, with a space between each two (so the line reads as words). */
const spaced = (...parts) => parts.filter(Boolean).flatMap((part, i) => (i === 0 ? [part] : [' ', part]));

function StateBadge({ state, status }) {
  const text = stateText(state);
  return html`${text && html`<span class=${`badge state ${text.replace(/[^a-z]+/gi, '-')}`}>${text}</span>`}
  ${status && status !== 'active' && html` <span class="badge">${STATUS_WORDS[status] ?? status}</span>`}`;
}

/** A component that renders again only when one of its props is a different value (or object). */
class Pure extends Component {
  shouldComponentUpdate(next) {
    for (const key of new Set([...Object.keys(next), ...Object.keys(this.props)])) if (next[key] !== this.props[key]) return true;
    return false;
  }
}

class ActorLine extends Pure {
  render({ actor, lineId, nowMs, zone }) {
    return html`<div class="actor-line" id=${lineId}>${spaced(
      html`<span class="kind">${actor.kind}</span>`,
      html`<code>${actorLabel(actor)}</code>`,
      (actor.state !== undefined || actor.status !== 'active') && html`<${StateBadge} state=${actor.state} status=${actor.status} />`,
      actor.kind === 'task' && actor.title && html`<strong class="actor-title">${actor.title}</strong>`,
      actor.kind === 'task' &&
        actor.target &&
        html`<span class="actor-target">next ${formatInZone(actor.target, zone)} <span class="muted">(${relative(actor.target, nowMs)})</span></span>`,
      actor.lastEvent && html`<span class="muted actor-last">last event <code>${actor.lastEvent}</code></span>`,
    )}</div>`;
  }
}

function ActorNode({ node, nowMs, zone }) {
  const { actor, children } = node;
  const lineId = `actor-${actor.key}`;
  const hidden = children.length - CHILDREN_SHOWN;
  // Only a task's line reads the clock.
  const lineNow = actor.kind === 'task' ? nowMs : 0;
  return html`<li aria-labelledby=${lineId} class=${`actor ${actor.kind}`}>
    <${ActorLine} actor=${actor} lineId=${lineId} nowMs=${lineNow} zone=${zone} />
    ${
      children.length > 0 &&
      html`<ul>
        ${children.slice(0, CHILDREN_SHOWN).map((child) => html`<${ActorNode} key=${child.actor.key} node=${child} nowMs=${nowMs} zone=${zone} />`)}
        ${hidden > 0 && html`<li class="muted">… and ${hidden} more</li>`}
      </ul>`
    }
  </li>`;
}

const NUMBER = new Intl.NumberFormat('en');
const count = (n) => NUMBER.format(n);
const plural = (n, one, many) => `${count(n)} ${n === 1 ? one : many}`;

/** The Sessions the summary lists, most due work first; choosing one calls `onChoose` with its id. */
export function SessionList({ summary, chosen, onChoose, nowMs }) {
  const sessions = summary?.sessions ?? [];
  const total = summary?.sessionCount ?? 0;
  if (sessions.length === 0)
    return html`<p class="empty">${chosen ? `Session ${chosen} has no live actors.` : 'No Session has live actors.'}</p>`;
  const more = total - sessions.length;
  return html`<ul class="session-list" aria-label="Sessions by due work">
    ${sessions.map(
      (s) => html`<li key=${s.sessionId}>
        <button type="button" class="link" aria-pressed=${s.sessionId === chosen ? 'true' : 'false'} onClick=${() => onChoose(s.sessionId === chosen ? '' : s.sessionId)}>
          <code>${s.sessionId}</code>
        </button>
        ${s.state !== undefined && html`<${StateBadge} state=${s.state} />`}
        <span class=${s.due > 0 ? 'due' : 'muted'}>${count(s.due)} due</span>
        <span class="muted">${plural(s.tasks, 'task', 'tasks')}</span>
        ${s.next && html`<span class="muted">next ${relative(s.next, nowMs)}</span>`}
      </li>`,
    )}
    ${more > 0 && html`<li class="muted more">… and ${plural(more, 'more Session', 'more Sessions')}</li>`}
  </ul>`;
}

/** How many of the selected tasks the tree shows, and the passivated ones it leaves out. */
export function TaskNote({ summary, shown, text }) {
  if (!summary) return null;
  const { taskCount, passivatedCount = 0 } = summary;
  const more = taskCount - shown;
  const [one, many] = text ? [`task matching “${text}”`, `tasks matching “${text}”`] : ['live task', 'live tasks'];
  return html`<p class="task-note" data-testid="inspector-task-note">
    ${`Showing ${count(shown)} of ${plural(taskCount, one, many)}`}
    ${more > 0 && html`<strong> — ${count(more)} more</strong>; narrow them with Find tasks or a Session`}.
    ${passivatedCount > 0 && html` ${plural(passivatedCount, 'passivated task', 'passivated tasks')} (no actor until due) not shown.`}
  </p>`;
}

/** The live actors as a tree; `sessionId` names the Session they were narrowed to, if any. */
export function ActorTree({ actors, nowMs, sessionId }) {
  const zone = zoneOnce();
  const roots = actorForest(actors);
  if (roots.length === 0)
    return html`<p class="empty">${sessionId ? `Session ${sessionId} has no live actors (no active tasks).` : 'No live actors.'}</p>`;
  return html`<ul class="actor-tree" aria-label="Actor tree">
    ${roots.map((node) => html`<${ActorNode} key=${node.actor.key} node=${node} nowMs=${nowMs} zone=${zone} />`)}
  </ul>`;
}

const timeOfDay = (at, zone) => {
  const p = wallReading(new Date(at).toISOString(), zone);
  return `${p.hour}:${p.minute}:${p.second}`;
};

class EntryRow extends Pure {
  render({ entry, zone }) {
    return html`<tr class=${entry.type === 'snapshot' ? 'change' : ''}>
      <td class="muted">${entry.seq}</td>
      <td class="when">${timeOfDay(entry.at, zone)}</td>
      <td class="who"><span class="kind">${entry.kind}</span> <code>${entry.label}</code></td>
      <td>${entryText(entry)}</td>
      <td><${StateBadge} state=${entry.state} status=${entry.status} /></td>
    </tr>`;
  }
}

/** The kept entries, newest first. */
export function EventStream({ events }) {
  const zone = zoneOnce();
  if (events.length === 0) return html`<p class="empty">No entries yet. They appear as the actors work.</p>`;
  return html`<div class="event-stream" tabindex="0" role="region" aria-label="Inspector events, scrollable">
    <table aria-label="Inspector events">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Time</th>
          <th scope="col">Actor</th>
          <th scope="col">Entry</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        ${[...events].reverse().map((entry) => html`<${EntryRow} key=${entry.seq} entry=${entry} zone=${zone} />`)}
      </tbody>
    </table>
  </div>`;
}

/**
 * The Sessions, the actor tree and the entry stream. It renders again only when a prop changes
 * (`version` counts the stream's batched updates), not whenever the page does.
 */
export class InspectorColumns extends Pure {
  render({ store, nowMs, sessionId, text, changesOnly, onChoose }) {
    const events = changesOnly ? store.events.filter((entry) => entry.type === 'snapshot') : store.events;
    let shownTasks = 0;
    for (const actor of store.actors.values()) if (actor.kind === 'task') shownTasks++;
    return html`<div class="inspector-cols">
      <div class="inspector-side">
        <section class="card" aria-labelledby="inspector-sessions-heading">
          <h2 id="inspector-sessions-heading">Sessions with work <span class="count">${count(store.summary?.sessionCount ?? 0)}</span></h2>
          <div class="inspector-scroll short" tabindex="0" role="region" aria-label="Sessions, scrollable">
            <${SessionList} summary=${store.summary} chosen=${sessionId} onChoose=${onChoose} nowMs=${nowMs} />
          </div>
        </section>
        <section class="card" aria-labelledby="actors-heading">
          <h2 id="actors-heading">Actors <span class="count">${store.actors.size}</span></h2>
          <${TaskNote} summary=${store.summary} shown=${shownTasks} text=${text} />
          <div class="inspector-scroll" tabindex="0" role="region" aria-label="Actors, scrollable">
            <${ActorTree} actors=${store.actors} nowMs=${nowMs} sessionId=${sessionId} />
          </div>
        </section>
      </div>
      <section class="card" aria-labelledby="entries-heading">
        <h2 id="entries-heading">
          Events <span class="count">${events.length}, newest first${store.skipped > 0 ? ` · ${count(store.skipped)} left out to keep up` : ''}</span>
        </h2>
        <${EventStream} events=${events} />
      </section>
    </div>`;
  }
}
