// What the Inspector tab knows of the Host's actor system, rebuilt from `/api/inspect/events`: a
// `snapshot` (the Host's bounded summary: supervisors, top Sessions, the tasks the filter selects)
// replaces everything; a `summary` update replaces the actors in view and the counts and merges its
// entries in by `seq`; each `entry` update adds an entry and refreshes (or drops) its actor, unless
// the summary already covers it. The page keeps the actors in view and the newest `EVENTS_KEPT`
// entries, each labelled with its actor's name while the actor was alive; it also turns state
// values and entries into words.

/** How many of the newest entries the page keeps and asks for. */
export const EVENTS_KEPT = 200;

/**
 * The value in superjson text. The inspector's views hold only JSON values (strings, numbers,
 * plain objects and arrays), so superjson's `json` member is the whole value; its `meta` only
 * records which parts were the same object.
 */
export const readSuperjson = (text) => JSON.parse(text).json;

/**
 * An empty store: the actors in view by key (parents first), the kept entries (oldest first),
 * the latest summary (Sessions, counts) and the `seq` it was taken at, and how many entries the
 * Host left out to keep the stream within its rate.
 */
export const emptyInspector = () => ({ actors: new Map(), events: [], summary: undefined, seq: 0, skipped: 0 });

/** The name an actor is listed under: the provided logic's name for effects, else its id. */
export const actorLabel = (actor) => (actor.kind === 'effect' && actor.src ? actor.src : actor.id);

/** The entry with `label`: the name of its actor while it was alive (an effect is named by its logic). */
const labelled = (entry, actor) => ({ ...entry, label: actor ? actorLabel(actor) : entry.actorId });

/** Replaces the store's contents with a summary (`{actors, events, sessions, …}`). */
export function applySnapshot(store, summary) {
  store.actors = new Map(summary.actors.map((actor) => [actor.key, actor]));
  store.events = summary.events.slice(-EVENTS_KEPT).map((entry) => labelled(entry, store.actors.get(entry.actorKey)));
  store.summary = summary;
  store.seq = summary.seq ?? 0;
}

/** Adds entries the store does not hold yet (by `seq`), keeping the newest `EVENTS_KEPT` in order. */
function mergeEvents(store, entries) {
  const held = new Set(store.events.map((entry) => entry.seq));
  const fresh = entries.filter((entry) => !held.has(entry.seq));
  if (fresh.length === 0) return;
  const merged = [...store.events, ...fresh.map((entry) => labelled(entry, store.actors.get(entry.actorKey)))];
  merged.sort((a, b) => a.seq - b.seq);
  store.events = merged.slice(-EVENTS_KEPT);
}

const ACTOR_FIELDS = ['id', 'kind', 'parent', 'session', 'status', 'lastEvent', 'target', 'title', 'src'];

/** The actor the store holds when `fresh` says the same, so what shows it need not render again; else `fresh`. */
function unchanged(held, fresh) {
  if (held === undefined || ACTOR_FIELDS.some((field) => held[field] !== fresh[field])) return fresh;
  return stateText(held.state) === stateText(fresh.state) ? held : fresh;
}

/** Applies one inspector update (`summary`, `entry`, `removed` or `reset`). */
export function applyUpdate(store, update) {
  if (update.type === 'summary') {
    store.actors = new Map(update.summary.actors.map((actor) => [actor.key, unchanged(store.actors.get(actor.key), actor)]));
    store.summary = update.summary;
    store.seq = update.summary.seq;
    store.skipped += update.skipped ?? 0;
    mergeEvents(store, update.summary.events);
  } else if (update.type === 'reset') {
    store.actors.clear();
    store.events = [];
  } else if (update.type === 'removed') {
    for (const key of update.keys) store.actors.delete(key);
  } else if (update.type === 'entry' && update.entry.seq <= store.seq) {
    // Taken before the summary the store holds: the actors are already newer than this entry.
    mergeEvents(store, [update.entry]);
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

/** How many Session ids the Session field suggests at most. */
export const SESSION_CHOICES = 200;

/**
 * The Sessions the Session field suggests, at most `SESSION_CHOICES`: the chosen one, those the
 * summary lists, then those the page knows of.
 */
export function sessionChoices(known, summary, chosen) {
  const ids = new Set(chosen ? [chosen] : []);
  for (const session of summary?.sessions ?? []) ids.add(session.sessionId);
  for (const id of known) {
    if (ids.size >= SESSION_CHOICES) break;
    ids.add(id);
  }
  return [...ids].slice(0, SESSION_CHOICES).sort();
}
