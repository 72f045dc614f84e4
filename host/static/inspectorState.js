// What the Inspector tab knows of the Host's actor system, rebuilt from `/api/inspect/events`: a
// `snapshot` replaces everything, each `update` adds an entry and refreshes (or drops) its actor.
// The page keeps the live actors and the newest `EVENTS_KEPT` entries, each labelled with its
// actor's name while the actor was alive; it also turns state values and entries into words.

/** How many of the newest entries the page keeps and asks for. */
export const EVENTS_KEPT = 200;

/**
 * The value in superjson text. The inspector's views hold only JSON values (strings, numbers,
 * plain objects and arrays), so superjson's `json` member is the whole value; its `meta` only
 * records which parts were the same object.
 */
export const readSuperjson = (text) => JSON.parse(text).json;

/** An empty store: the live actors by key (parents first) and the kept entries, oldest first. */
export const emptyInspector = () => ({ actors: new Map(), events: [] });

/** The name an actor is listed under: the provided logic's name for effects, else its id. */
export const actorLabel = (actor) => (actor.kind === 'effect' && actor.src ? actor.src : actor.id);

/** The entry with `label`: the name of its actor while it was alive (an effect is named by its logic). */
const labelled = (entry, actor) => ({ ...entry, label: actor ? actorLabel(actor) : entry.actorId });

/** Replaces the store's contents with a view (`{actors, events}`). */
export function applySnapshot(store, view) {
  store.actors = new Map(view.actors.map((actor) => [actor.key, actor]));
  store.events = view.events.slice(-EVENTS_KEPT).map((entry) => labelled(entry, store.actors.get(entry.actorKey)));
}

/** Applies one inspector update (`entry`, `removed` or `reset`). */
export function applyUpdate(store, update) {
  if (update.type === 'reset') {
    store.actors.clear();
    store.events = [];
  } else if (update.type === 'removed') {
    for (const key of update.keys) store.actors.delete(key);
  } else if (update.type === 'entry') {
    const actor = update.actor ?? store.actors.get(update.entry.actorKey);
    // An entry without its actor means the actor is gone (done, stopped or failed).
    if (update.actor) store.actors.set(update.actor.key, update.actor);
    else store.actors.delete(update.entry.actorKey);
    store.events.push(labelled(update.entry, actor));
    if (store.events.length > EVENTS_KEPT) store.events.splice(0, store.events.length - EVENTS_KEPT);
  }
}

/** The actors as a forest: `[{actor, children}]`, roots first; an actor whose parent is not shown is a root. */
export function actorForest(actors) {
  const nodes = new Map();
  for (const actor of actors.values()) nodes.set(actor.key, { actor, children: [] });
  const roots = [];
  for (const node of nodes.values()) {
    const parent = node.actor.parent === undefined ? undefined : nodes.get(node.actor.parent);
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/** A state value in words: `scheduled`, or `running.idle` for a nested one. */
export function stateText(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return Object.entries(value)
    .map(([key, inner]) => (stateText(inner) === '' ? key : `${key}.${stateText(inner)}`))
    .join(', ');
}

/** What an entry records, in words. */
export function entryText(entry) {
  switch (entry.type) {
    case 'actor':
      return 'started';
    case 'event':
      return entry.source ? `got ${entry.event} from ${entry.source}` : `got ${entry.event}`;
    case 'snapshot':
      return `${entry.event} →`;
    case 'microstep':
      return `microstep on ${entry.event}`;
    case 'action':
      return `ran ${entry.action}`;
    default:
      return entry.type;
  }
}

/** The Sessions the filter offers: those with tasks, those in the tree, and the chosen one. */
export function sessionChoices(catalog, actors, chosen) {
  const ids = new Set(catalog.map((entry) => entry.sessionId));
  for (const actor of actors.values()) if (actor.session) ids.add(actor.session);
  if (chosen) ids.add(chosen);
  return [...ids].sort();
}
