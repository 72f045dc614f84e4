// How the Host commands print tasks: one row per task with its next target in UTC and in the
// task's own zone, and its timing in words.
import type { ScheduleRecord } from '../domain/types.ts';
import { formatTable } from './table.ts';

/** A task as the commands print it. */
export interface TaskLine {
  readonly sessionId: string;
  readonly status: string;
  readonly record: ScheduleRecord;
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
  const rows = tasks.map(({ sessionId, status, record }) => {
    const zone = 'timeZone' in record ? record.timeZone : 'UTC';
    const local = status === 'active' ? `${localReading(record.scheduledAt, zone)} ${zone}` : '-';
    return [record.id, sessionId, status, record.title, status === 'active' ? record.scheduledAt : '-', local, describeTiming(record)];
  });
  return formatTable(['ID', 'SESSION', 'STATUS', 'TITLE', 'NEXT (UTC)', 'NEXT (LOCAL)', 'TIMING'], rows);
}
