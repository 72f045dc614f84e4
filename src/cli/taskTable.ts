// How the Host commands print tasks: one row per task with its state (active, paused, failing or
// inactive), its next target in UTC and in the task's own zone, and its timing in words.
import type { DeliveryFailure, ScheduleRecord, ScheduleView } from '../domain/tasks/types.ts';
import { formatTable } from './table.ts';

/** A task as the commands print it. */
export interface TaskLine {
  readonly sessionId: string;
  readonly status: string;
  readonly record: ScheduleRecord;
  /** When the task was paused; present while it is. */
  readonly pausedAt?: string;
  /** The failure status of its latest delivery attempt; present while it failed. */
  readonly failure?: DeliveryFailure;
}

/** The line of an active task's view (as create, list and update answer it). */
export function viewLine(sessionId: string, view: ScheduleView): TaskLine {
  const line: TaskLine = { sessionId, status: 'active', record: view };
  return {
    ...line,
    ...(view.pausedAt === undefined ? {} : { pausedAt: view.pausedAt }),
    ...(view.failure === undefined ? {} : { failure: view.failure }),
  };
}

/**
 * The STATUS cell: `inactive`, `active`, `paused` (never delivered until resumed or run now) or
 * `failing` (its latest delivery attempt failed), `paused, failing` when both.
 */
export function statusCell(task: TaskLine): string {
  if (task.status !== 'active') return task.status;
  const states = [...(task.pausedAt === undefined ? [] : ['paused']), ...(task.failure === undefined ? [] : ['failing'])];
  return states.length === 0 ? 'active' : states.join(', ');
}

/** The local reading of `iso` in `zone`: `2030-01-02 09:00:00`. */
export function localReading(iso: string, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** The timing of a record in a few words. */
export function describeTiming(record: ScheduleRecord): string {
  switch (record.kind) {
    case 'after':
      return `once, ${record.afterSeconds} s after creation`;
    case 'at':
      return 'once';
    case 'every':
      return `every ${record.everySeconds} s`;
    case 'daily':
      return `daily ${record.time} ${record.timeZone}`;
    case 'weekly':
      return `weekly ${record.time} on ${record.weekdays.join(',')} ${record.timeZone}`;
    case 'cron':
      return `cron "${record.expression}" ${record.timeZone}`;
  }
}

/** Tasks as table lines, or a line saying there are none. */
export function taskLines(tasks: readonly TaskLine[]): string[] {
  if (tasks.length === 0) return ['(no tasks)'];
  const rows = tasks.map((task) => {
    const { sessionId, status, record } = task;
    const zone = 'timeZone' in record ? record.timeZone : 'UTC';
    const local = status === 'active' ? `${localReading(record.scheduledAt, zone)} ${zone}` : '-';
    const next = status === 'active' ? record.scheduledAt : '-';
    return [record.id, sessionId, statusCell(task), record.title, next, local, describeTiming(record)];
  });
  return formatTable(['ID', 'SESSION', 'STATUS', 'TITLE', 'NEXT (UTC)', 'NEXT (LOCAL)', 'TIMING'], rows);
}
