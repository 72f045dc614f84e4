// Records and rows the domain tests of pausing, running now and delivering share.
import type { ScheduleRecord, TaskRow } from '../../src/domain/tasks/types.ts';

export const at = (iso: string): number => Date.parse(iso);

/** Every 60 s, its target a minute after 2030-01-01T08:00Z. */
export const EVERY_MINUTE: ScheduleRecord = {
  id: 'sch_1',
  kind: 'every',
  title: 't',
  prompt: 'p',
  scheduledAt: '2030-01-01T08:01:00.000Z',
  everySeconds: 60,
};

/** An active row of Session s1 holding `record`, with any other members given. */
export const activeRow = (record: ScheduleRecord, extra: Partial<TaskRow> = {}): TaskRow => ({
  sessionId: 's1',
  status: 'active',
  record,
  ...extra,
});
