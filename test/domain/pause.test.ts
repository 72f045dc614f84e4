// Pause, resume and run now as pure row changes, a pause's note, and when a row is due.

import { checkPauseNote, pauseRow, resumeRow, triggerRow } from '../../src/domain/tasks/pause.ts';
import type { ScheduleRecord } from '../../src/domain/tasks/types.ts';
import { dueAtMs, isDueAt } from '../../src/domain/time/due.ts';
import { activeRow, at, EVERY_MINUTE } from './rowFixtures.ts';

const every = EVERY_MINUTE;
const daily: ScheduleRecord = {
  id: 'sch_2',
  kind: 'daily',
  title: 't',
  prompt: 'p',
  scheduledAt: '2030-01-01T08:00:00.000Z',
  time: '09:00:00',
  timeZone: 'Europe/Paris',
};
const after: ScheduleRecord = {
  id: 'sch_3',
  kind: 'after',
  title: 't',
  prompt: 'p',
  scheduledAt: '2030-01-01T08:01:00.000Z',
  afterSeconds: 60,
};
const rowOf = activeRow;

describe('pause and resume', () => {
  it('pausing records the instant; pausing again keeps the first one and the same row', () => {
    const paused = pauseRow(rowOf(every), at('2030-01-01T08:00:30.000Z'));
    expect(paused.pausedAt).toBe('2030-01-01T08:00:30.000Z');
    expect(paused.record).toBe(every);
    expect(pauseRow(paused, at('2030-01-01T09:00:00.000Z'))).toBe(paused);
  });

  it('resuming a running row changes nothing', () => {
    const row = rowOf(every);
    expect(resumeRow(row, at('2030-01-01T09:00:00.000Z'))).toBe(row);
  });

  it('a recurring task resumed after its target moves to its first target strictly after the resume', () => {
    const resumed = resumeRow(rowOf(every, { pausedAt: '2030-01-01T08:00:30.000Z' }), at('2030-01-01T08:05:30.000Z'));
    expect(resumed.pausedAt).toBeUndefined();
    expect(resumed.record.scheduledAt).toBe('2030-01-01T08:06:00.000Z');
    // Exactly on a grid point: that point has passed, the next one is the target.
    expect(resumeRow(rowOf(every, { pausedAt: '2030-01-01T08:00:30.000Z' }), at('2030-01-01T08:06:00.000Z')).record.scheduledAt).toBe(
      '2030-01-01T08:07:00.000Z',
    );
    // A wall-clock rule: the next 09:00 in Paris after the resume.
    expect(resumeRow(rowOf(daily, { pausedAt: '2030-01-01T07:00:00.000Z' }), at('2030-01-03T12:00:00.000Z')).record.scheduledAt).toBe(
      '2030-01-04T08:00:00.000Z',
    );
  });

  it('a recurring task resumed before its target keeps it; a one-shot always keeps its target', () => {
    const early = resumeRow(rowOf(every, { pausedAt: '2030-01-01T08:00:10.000Z' }), at('2030-01-01T08:00:20.000Z'));
    expect(early.record).toBe(every);
    const late = resumeRow(rowOf(after, { pausedAt: '2030-01-01T08:00:10.000Z' }), at('2030-01-01T09:00:00.000Z'));
    expect(late.record).toBe(after);
    expect(isDueAt(late, at('2030-01-01T09:00:00.000Z'))).toBe(true);
  });
});

describe('run now and due times', () => {
  it('a running task is due at its target; a paused one never, unless run now', () => {
    expect(dueAtMs(rowOf(every))).toBe(at(every.scheduledAt));
    expect(dueAtMs(rowOf(every, { pausedAt: '2030-01-01T08:00:00.000Z' }))).toBeUndefined();
    expect(isDueAt(rowOf(every, { pausedAt: '2030-01-01T08:00:00.000Z' }), at('2031-01-01T00:00:00.000Z'))).toBe(false);
    const triggered = triggerRow(rowOf(every, { pausedAt: '2030-01-01T08:00:00.000Z' }), at('2030-01-01T08:00:05.000Z'));
    expect(dueAtMs(triggered)).toBe(at('2030-01-01T08:00:05.000Z'));
  });

  it('run now makes a task due at the request when that is before its target, and keeps an earlier request', () => {
    const triggered = triggerRow(rowOf(every), at('2030-01-01T08:00:05.000Z'));
    expect(triggered.triggeredAt).toBe('2030-01-01T08:00:05.000Z');
    expect(triggered.record).toBe(every);
    expect(dueAtMs(triggered)).toBe(at('2030-01-01T08:00:05.000Z'));
    expect(triggerRow(triggered, at('2030-01-01T08:00:09.000Z'))).toBe(triggered);
    // A request after the target: the target is due first.
    expect(dueAtMs(triggerRow(rowOf(every), at('2030-01-01T08:02:00.000Z')))).toBe(at(every.scheduledAt));
  });
});

describe('pause notes', () => {
  it('a pause with a note keeps it beside pausedAt; resume drops both', () => {
    const paused = pauseRow(rowOf(every), at('2030-01-01T08:00:30.000Z'), 'Vendor outage');
    expect(paused).toMatchObject({ pausedAt: '2030-01-01T08:00:30.000Z', pauseNote: 'Vendor outage' });
    const resumed = resumeRow(paused, at('2030-01-01T08:00:40.000Z'));
    expect(resumed).not.toHaveProperty('pausedAt');
    expect(resumed).not.toHaveProperty('pauseNote');
  });

  it('pausing a paused row with another note replaces it and keeps the instant; the same note or none returns the row', () => {
    const paused = pauseRow(rowOf(every), at('2030-01-01T08:00:30.000Z'), 'first');
    const renoted = pauseRow(paused, at('2030-01-01T09:00:00.000Z'), 'second');
    expect(renoted).toMatchObject({ pausedAt: '2030-01-01T08:00:30.000Z', pauseNote: 'second' });
    expect(pauseRow(renoted, at('2030-01-01T09:00:00.000Z'), 'second')).toBe(renoted);
    expect(pauseRow(renoted, at('2030-01-01T09:00:00.000Z'))).toBe(renoted);
  });

  it('checkPauseNote trims a note of 1 to 500 characters and refuses anything else with invalid_selector', () => {
    expect(checkPauseNote(undefined)).toBeUndefined();
    expect(checkPauseNote('  why \n')).toBe('why');
    expect(checkPauseNote('x'.repeat(500))).toHaveLength(500);
    for (const bad of ['', ' \t ', 'x'.repeat(501), 7, null, {}]) {
      expect(() => checkPauseNote(bad)).toThrow(expect.objectContaining({ code: 'invalid_selector' }));
    }
    expect(() => checkPauseNote(3, 'pauseNote')).toThrow(/^pauseNote must be a string of 1 to 500 characters, not blank; got 3\.$/);
  });
});
