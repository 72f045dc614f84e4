// The plain types of what a Host hands the service besides its ports (docs/api.md): the
// configuration and the inspection event its `inspect` listener takes. They sit here, below the
// ports that name them (`MemberPorts`), so that the ports import nothing above the domain;
// src/runtime/config.ts holds the defaults and the validation.
//
// The inspection event is declared here rather than imported from XState so that the package's
// main declarations never load XState's: those do not compile in a consumer with
// `exactOptionalPropertyTypes` and `skipLibCheck: false`. XState's `InspectionEvent` is
// assignable to it, so XState hands its events to such a function as they are; a Host that wants
// XState's own type annotates its listener with `InspectionEvent` from `xstate` (the service
// option is a method, so either type of listener is accepted).
import type { RetryPolicy } from './tasks/retry.ts';

/** What `createScheduleService` accepts as `config`. */
export interface ScheduleConfig {
  readonly deliveryHistoryDays?: number;
  readonly deliveryHistoryRecords?: number;
  readonly retry?: RetryPolicy | false;
  readonly maxWaitMs?: number;
  readonly maxConcurrentRestores?: number;
  /** Tasks due further ahead than this are kept as rows without a live actor; `null` keeps every task live. */
  readonly passivationHorizonMs?: number | null;
  /** The least time between two info lines summing up deliveries (each delivery is logged at debug). */
  readonly deliverySummaryIntervalMs?: number;
}

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
