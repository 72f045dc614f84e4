// The inspection events of a cluster Host: the Host runs one schedule service (one XState
// actor system) per shard it holds, and every system numbers its actors from `x:0`, so one
// inspector fed by all of them would mix their actors up. Each event's actor references are seen
// here through a view that prefixes the actor's key with its shard (`s12/x:3`) and names each
// shard's supervisor after its shard, so one inspector holds the trees of every shard held; a
// shard's tree leaves it when the shard's service closes (the shard was released or lost).
// The inspector reads the passivated tasks (active tasks kept only as rows) from one supervisor,
// the one whose snapshot came last, so on a cluster replica that list covers one shard at a time.
import type { ScheduleInspectionEvent } from '../domain/serviceOptions.ts';

type Bag = Record<string | symbol, unknown>;

const isBag = (value: unknown): value is Bag => typeof value === 'object' && value !== null;

/** The actor references already seen, per shard, so a reference keeps one view. */
const views = new Map<number, WeakMap<object, object>>();

function viewOf(ref: unknown, shard: number): unknown {
  if (!isBag(ref)) return ref;
  let byRef = views.get(shard);
  if (byRef === undefined) {
    byRef = new WeakMap();
    views.set(shard, byRef);
  }
  const known = byRef.get(ref);
  if (known !== undefined) return known;
  const view = new Proxy(ref, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === 'sessionId') return typeof value === 'string' ? `s${shard}/${value}` : value;
      if (property === '_parent') return viewOf(value, shard);
      if (property === 'id') {
        if (target._parent === undefined) return `supervisor (shard ${shard})`;
        // An actor named after its key (XState's default) stays named after its (prefixed) key.
        return value === target.sessionId ? `s${shard}/${String(value)}` : value;
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  byRef.set(ref, view);
  return view;
}

/** The event as one inspector of every shard's actors reads it. */
export function shardInspectionEvent(event: ScheduleInspectionEvent, shard: number): ScheduleInspectionEvent {
  const { sourceRef: source, snapshot } = event as { sourceRef?: unknown; snapshot?: unknown };
  // A shard's service closes (its shard moved on) without stopping its supervisor; the
  // supervisor's `closed` snapshot is read as its end, so it leaves the tree with its actors.
  const root = isBag(event.actorRef) && event.actorRef._parent === undefined;
  const closed = event.type === '@xstate.snapshot' && root && isBag(snapshot) && snapshot.value === 'closed';
  return {
    ...event,
    ...(closed ? { snapshot: { ...snapshot, status: 'stopped' } } : {}),
    rootId: `s${shard}/${event.rootId}`,
    actorRef: viewOf(event.actorRef, shard),
    ...(source === undefined ? {} : { sourceRef: viewOf(source, shard) }),
  } as ScheduleInspectionEvent;
}
