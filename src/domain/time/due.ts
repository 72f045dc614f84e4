// When a task is due: at its committed target, unless it is paused; at once when a run-now
// delivery was requested (paused or not). A paused task that was not run now is never due.

import type { TaskRow } from '../tasks/types.ts';
import { instantMs } from './instant.ts';

/** The instant (epoch ms) at which the row next falls due, or undefined while it is paused with nothing to run. */
export function dueAtMs(row: TaskRow): number | undefined {
  const trigger = row.triggeredAt === undefined ? undefined : instantMs(row.triggeredAt);
  if (row.pausedAt !== undefined) return trigger;
  const target = instantMs(row.record.scheduledAt);
  return trigger === undefined ? target : Math.min(target, trigger);
}

/** True when the row is due at or before `now`. */
export function isDueAt(row: TaskRow, now: number): boolean {
  const due = dueAtMs(row);
  return due !== undefined && due <= now;
}

/** True when the row's own target (not a run-now request) makes it due at `now`. */
export const isTargetDueAt = (row: TaskRow, now: number): boolean => row.pausedAt === undefined && instantMs(row.record.scheduledAt) <= now;
