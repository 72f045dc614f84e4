// The inspection event the service's `inspect` option and the inspector's `inspect` take, declared
// here rather than imported from XState so that the package's main declarations never load
// XState's: those do not compile in a consumer with `exactOptionalPropertyTypes` and
// `skipLibCheck: false`. XState's `InspectionEvent` is assignable to it, so XState hands its
// events to such a function as they are; a Host that wants XState's own type annotates its
// listener with `InspectionEvent` from `xstate` (the service option is a method, so either type
// of listener is accepted).

/**
 * An XState inspection event (`@xstate.actor`, `@xstate.event`, `@xstate.snapshot`,
 * `@xstate.microstep`, `@xstate.action`, …), with the members every kind has. The events are
 * XState's `InspectionEvent` values.
 */
export interface ScheduleInspectionEvent {
  readonly type: `@xstate.${string}`;
  /** The session id of the root actor of the system. */
  readonly rootId: string;
  /** The actor the event concerns. */
  readonly actorRef: unknown;
}
