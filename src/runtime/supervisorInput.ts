// The supervisor's input — the Host's ports and the configuration — and the check that a value
// is one. Kept apart from the supervisor logic so that the service's declarations name the input
// without loading XState's.

import type { ScheduleConfig } from '../domain/serviceOptions.ts';
import type { Clock, Logger, ScheduleMetrics, ScheduleStorage, SessionController } from '../ports.ts';

/** The supervisor's input: the Host's ports and the configuration. */
export interface ScheduleSupervisorInput {
  /** The Host adapter that resolves (and restores) Sessions. Required. */
  readonly sessions: SessionController;
  /** Default: `jsonFileStorage({ path: './data/schedule.json' })`. */
  readonly storage?: ScheduleStorage;
  /** Default: the system clock. */
  readonly clock?: Clock;
  readonly config?: ScheduleConfig;
  /** Default: console. */
  readonly logger?: Logger;
  /** Where counters, timings and levels are reported (docs/operations.md). Default: nowhere. */
  readonly metrics?: ScheduleMetrics;
}

/** The logger used when the input names none. */
export const consoleLogger: Logger = {
  warn: (msg, data) => console.warn(msg, data ?? ''),
  error: (msg, data) => console.error(msg, data ?? ''),
};

/** Whether a value is a usable supervisor input (a Session controller with `resolveAgent`). */
export function isSupervisorInput(value: unknown): value is ScheduleSupervisorInput {
  if (typeof value !== 'object' || value === null || !('sessions' in value)) return false;
  const sessions = value.sessions;
  return typeof sessions === 'object' && sessions !== null && 'resolveAgent' in sessions && typeof sessions.resolveAgent === 'function';
}
