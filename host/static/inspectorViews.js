// The Inspector tab's two views: the actor tree (supervisor → Session actors → task actors, with
// the effects each runs), every actor with its state and last event and each task with its title
// and next target; and the entry stream, newest first.
import { browserZone, formatInZone, relative, wallReading } from './format.js';
import { html } from './html.js';
import { actorForest, actorLabel, entryText, stateText } from './inspectorState.js';

/** How many children of one actor are listed (a Session may have many tasks). */
const CHILDREN_SHOWN = 100;

const STATUS_WORDS = { done: 'done', error: 'failed', stopped: 'stopped' };

/** The parts that are present, with a space between each two (so the line reads as words). */
const spaced = (...parts) => parts.filter(Boolean).flatMap((part, i) => (i === 0 ? [part] : [' ', part]));

function StateBadge({ state, status }) {
  const text = stateText(state);
  return html`${text && html`<span class=${`badge state ${text.replace(/[^a-z]+/gi, '-')}`}>${text}</span>`}
  ${status && status !== 'active' && html` <span class="badge">${STATUS_WORDS[status] ?? status}</span>`}`;
}

function ActorNode({ node, nowMs, zone }) {
  const { actor, children } = node;
  const lineId = `actor-${actor.key}`;
  const hidden = children.length - CHILDREN_SHOWN;
  return html`<li aria-labelledby=${lineId} class=${`actor ${actor.kind}`}>
    <div class="actor-line" id=${lineId}>${spaced(
      html`<span class="kind">${actor.kind}</span>`,
      html`<code>${actorLabel(actor)}</code>`,
      (actor.state !== undefined || actor.status !== 'active') && html`<${StateBadge} state=${actor.state} status=${actor.status} />`,
      actor.kind === 'task' && actor.title && html`<strong class="actor-title">${actor.title}</strong>`,
      actor.kind === 'task' &&
        actor.target &&
        html`<span class="actor-target">next ${formatInZone(actor.target, zone)} <span class="muted">(${relative(actor.target, nowMs)})</span></span>`,
      actor.lastEvent && html`<span class="muted actor-last">last event <code>${actor.lastEvent}</code></span>`,
    )}</div>
    ${
      children.length > 0 &&
      html`<ul>
        ${children.slice(0, CHILDREN_SHOWN).map((child) => html`<${ActorNode} key=${child.actor.key} node=${child} nowMs=${nowMs} zone=${zone} />`)}
        ${hidden > 0 && html`<li class="muted">… and ${hidden} more</li>`}
      </ul>`
    }
  </li>`;
}

/** The live actors as a tree; `sessionId` names the Session they were narrowed to, if any. */
export function ActorTree({ actors, nowMs, sessionId }) {
  const zone = browserZone();
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

/** The kept entries, newest first. */
export function EventStream({ events }) {
  const zone = browserZone();
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
        ${[...events].reverse().map(
          (entry) => html`<tr key=${entry.seq} class=${entry.type === 'snapshot' ? 'change' : ''}>
            <td class="muted">${entry.seq}</td>
            <td class="when">${timeOfDay(entry.at, zone)}</td>
            <td class="who"><span class="kind">${entry.kind}</span> <code>${entry.label}</code></td>
            <td>${entryText(entry)}</td>
            <td><${StateBadge} state=${entry.state} status=${entry.status} /></td>
          </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
