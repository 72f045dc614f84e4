// The drift report: which committed wall-clock targets are not occurrences of their rule under the
// time-zone data in use, their local reading, and the rule's nearest occurrence.

import { driftedFirst, driftLimitOf } from '../../src/domain/reads/driftPage.ts';
import type { ScheduleRecord, TaskRow } from '../../src/domain/tasks/types.ts';
import { driftedCount, driftReport } from '../../src/domain/time/drift.ts';

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

describe('driftedFirst (remote.drift({limit}))', () => {
  it('is the report’s first entries and its length, whatever the order of the rows', () => {
    const rows: TaskRow[] = [];
    for (let n = 1; n <= 400; n++) {
      // Winter days at 07:00Z (08:00 Paris: drifted) or 08:00Z (09:00: not), some inactive, some hourly.
      const day = new Date(Date.parse('2030-01-02T07:00:00.000Z') + ((n * 37) % 50) * 86_400_000 + (n % 3 === 0 ? 3_600_000 : 0));
      const timing: Timing = n % 7 === 0 ? { kind: 'every', everySeconds: 3600 } : PARIS_0900;
      rows.push(row(n, timing, day.toISOString(), n % 11 === 0 ? 'inactive' : 'active', `s${n % 4}`));
    }
    const report = driftReport(rows);
    expect(report.length).toBeGreaterThan(100);
    const scrambled = rows
      .map((r, i) => ({ r, k: (i * 7919) % rows.length }))
      .sort((a, b) => a.k - b.k)
      .map(({ r }) => r);
    for (const order of [rows, [...rows].reverse(), scrambled]) {
      for (const limit of [1, 7, 50, 500]) {
        expect(driftedFirst(order, limit)).toEqual({ tasks: report.slice(0, limit), total: report.length });
      }
    }
  });

  it('takes {limit} of 1 to 500 and nothing else', () => {
    expect(driftLimitOf({ limit: 500 })).toBe(500);
    for (const limit of [0, 501, 2.5, '50', undefined])
      expect(() => driftLimitOf({ limit })).toThrow(expect.objectContaining({ code: 'invalid_rule' }));
    for (const bad of [null, 50, [], { limit: 5, cursor: 'x' }])
      expect(() => driftLimitOf(bad)).toThrow(expect.objectContaining({ code: 'invalid_selector' }));
  });
});
