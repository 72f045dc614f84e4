// The drift report: which committed wall-clock targets are not occurrences of their rule under the
// time-zone data in use, their local reading, and the rule's nearest occurrence.
import { driftedCount, driftReport } from '../../src/domain/drift.ts';
import type { ScheduleRecord, TaskRow } from '../../src/domain/types.ts';

type Timing =
  | { kind: 'daily'; time: string; timeZone: string }
  | { kind: 'weekly'; time: string; timeZone: string; weekdays: number[] }
  | { kind: 'cron'; expression: string; timeZone: string }
  | { kind: 'every'; everySeconds: number }
  | { kind: 'at' };

function row(n: number, timing: Timing, scheduledAt: string, status: TaskRow['status'] = 'active', sessionId = 's1'): TaskRow {
  const record = { id: `sch_${n}`, title: 't', prompt: 'p', scheduledAt, ...timing } as ScheduleRecord;
  return { sessionId, status, record };
}

const PARIS_0900: Timing = { kind: 'daily', time: '09:00:00', timeZone: 'Europe/Paris' };
const PARIS_0230: Timing = { kind: 'daily', time: '02:30:00', timeZone: 'Europe/Paris' };

describe('driftReport', () => {
  it('passes over targets that are occurrences of their rule', () => {
    const rows = [
      row(1, PARIS_0900, '2030-01-02T08:00:00.000Z'),
      row(2, PARIS_0900, '2030-07-02T07:00:00.000Z'),
      row(3, { kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Tokyo', weekdays: [1] }, '2030-01-07T00:00:00.000Z'),
      row(4, { kind: 'cron', expression: '30 10 * * 1-5', timeZone: 'UTC' }, '2030-01-04T10:30:00.000Z'),
      row(5, { kind: 'cron', expression: '0 9 * * *', timeZone: 'America/New_York' }, '2030-07-01T13:00:00.000Z'),
    ];
    expect(driftReport(rows)).toEqual([]);
  });

  it('reports a daily target in a zone with DST, with its local reading and the nearest occurrence', () => {
    expect(driftReport([row(1, PARIS_0900, '2030-01-02T07:00:00.000Z')])).toEqual([
      {
        sessionId: 's1',
        id: 'sch_1',
        scheduledAt: '2030-01-02T07:00:00.000Z',
        local: '2030-01-02T08:00:00+01:00',
        occurrence: '2030-01-02T08:00:00.000Z',
      },
    ]);
  });

  it('reports a weekly target in a zone without DST', () => {
    const weekly: Timing = { kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Tokyo', weekdays: [1] };
    expect(driftReport([row(1, weekly, '2030-01-07T01:00:00.000Z')])).toEqual([
      {
        sessionId: 's1',
        id: 'sch_1',
        scheduledAt: '2030-01-07T01:00:00.000Z',
        local: '2030-01-07T10:00:00+09:00',
        occurrence: '2030-01-07T00:00:00.000Z',
      },
    ]);
  });

  it('reports cron targets, in UTC and in a zone with DST, choosing the nearer occurrence', () => {
    const weekdays: Timing = { kind: 'cron', expression: '30 10 * * 1-5', timeZone: 'UTC' };
    const newYork: Timing = { kind: 'cron', expression: '0 9 * * *', timeZone: 'America/New_York' };
    expect(driftReport([row(1, weekdays, '2030-01-05T10:30:00.000Z'), row(2, newYork, '2030-07-01T14:00:00.000Z')])).toEqual([
      // Saturday: Friday's firing is 24 h before, Monday's 72 h after.
      {
        sessionId: 's1',
        id: 'sch_1',
        scheduledAt: '2030-01-05T10:30:00.000Z',
        local: '2030-01-05T10:30:00+00:00',
        occurrence: '2030-01-04T10:30:00.000Z',
      },
      // 09:00 as if New York kept standard time in summer.
      {
        sessionId: 's1',
        id: 'sch_2',
        scheduledAt: '2030-07-01T14:00:00.000Z',
        local: '2030-07-01T10:00:00-04:00',
        occurrence: '2030-07-01T13:00:00.000Z',
      },
    ]);
  });

  it('reports a target that older data put at a wall time the current data calls a gap', () => {
    // 02:30 on 2030-03-31 does not exist in Paris; the instant 02:30+01:00 reads 03:30+02:00.
    expect(driftReport([row(1, PARIS_0230, '2030-03-31T01:30:00.000Z')])).toEqual([
      {
        sessionId: 's1',
        id: 'sch_1',
        scheduledAt: '2030-03-31T01:30:00.000Z',
        local: '2030-03-31T03:30:00+02:00',
        occurrence: '2030-04-01T00:30:00.000Z',
      },
    ]);
  });

  it('in an overlap, the earlier instant is an occurrence and the later one is not', () => {
    const earlier = row(1, PARIS_0230, '2030-10-27T00:30:00.000Z');
    const later = row(2, PARIS_0230, '2030-10-27T01:30:00.000Z');
    expect(driftReport([earlier, later])).toEqual([
      {
        sessionId: 's1',
        id: 'sch_2',
        scheduledAt: '2030-10-27T01:30:00.000Z',
        local: '2030-10-27T02:30:00+01:00',
        occurrence: '2030-10-27T00:30:00.000Z',
      },
    ]);
  });

  it('answers the earlier occurrence when two are equally near', () => {
    const midnight: Timing = { kind: 'daily', time: '00:00:00', timeZone: 'UTC' };
    expect(driftReport([row(1, midnight, '2030-01-02T12:00:00.000Z')])[0]?.occurrence).toBe('2030-01-02T00:00:00.000Z');
  });

  it('leaves out inactive tasks and every, after and at tasks', () => {
    const rows = [
      row(1, PARIS_0900, '2030-01-02T07:00:00.000Z', 'inactive'),
      row(2, { kind: 'every', everySeconds: 3600 }, '2030-01-02T07:13:00.000Z'),
      row(3, { kind: 'at' }, '2030-01-02T07:13:00.000Z'),
    ];
    expect(driftReport(rows)).toEqual([]);
  });

  it('sorts by target, then by task number', () => {
    const rows = [
      row(10, PARIS_0900, '2030-01-03T07:00:00.000Z', 'active', 's2'),
      row(9, PARIS_0900, '2030-01-03T07:00:00.000Z'),
      row(2, PARIS_0900, '2030-01-04T07:00:00.000Z'),
      row(11, PARIS_0900, '2030-01-02T07:00:00.000Z'),
    ];
    expect(driftReport(rows).map((e) => e.id)).toEqual(['sch_11', 'sch_9', 'sch_10', 'sch_2']);
  });
});

describe('driftedCount', () => {
  it('counts what the report lists: rules repeated, interleaved and shared targets, gaps, overlaps, inactive and other kinds', () => {
    const weekly: Timing = { kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Tokyo', weekdays: [1] };
    const weeklyOther: Timing = { kind: 'weekly', time: '09:00:00', timeZone: 'Asia/Tokyo', weekdays: [1, 2] };
    const cron: Timing = { kind: 'cron', expression: '0 9 * * *', timeZone: 'America/New_York' };
    const rows = [
      row(1, PARIS_0900, '2030-01-02T08:00:00.000Z'),
      row(2, PARIS_0900, '2030-01-02T08:00:00.000Z'),
      row(3, PARIS_0900, '2030-01-02T07:00:00.000Z'),
      row(4, weekly, '2030-01-07T00:00:00.000Z'),
      row(5, weeklyOther, '2030-01-08T00:00:00.000Z'),
      row(6, weekly, '2030-01-08T00:00:00.000Z'),
      row(7, cron, '2030-07-01T13:00:00.000Z'),
      row(8, PARIS_0900, '2030-01-02T07:00:00.000Z'),
      row(9, cron, '2030-07-01T14:00:00.000Z'),
      row(10, PARIS_0230, '2030-03-31T01:30:00.000Z'),
      row(11, PARIS_0230, '2030-10-27T00:30:00.000Z'),
      row(12, PARIS_0230, '2030-10-27T01:30:00.000Z'),
      row(13, PARIS_0900, '2030-01-02T07:00:00.000Z', 'inactive'),
      row(14, { kind: 'every', everySeconds: 3600 }, '2030-01-02T07:13:00.000Z'),
      row(15, { kind: 'at' }, '2030-01-02T07:13:00.000Z'),
    ];
    const listed = driftReport(rows).map((e) => e.id);
    expect(listed).toEqual(['sch_3', 'sch_8', 'sch_6', 'sch_10', 'sch_9', 'sch_12']);
    expect(driftedCount(rows)).toBe(listed.length);
    expect(driftedCount([])).toBe(0);
  });
});
