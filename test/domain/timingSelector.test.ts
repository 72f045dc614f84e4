// parseTimingSelector: exactly one timing selector, validated as creation validates it.
import { parseTimingSelector } from '../../src/domain/args/selectors.ts';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe('parseTimingSelector', () => {
  it('gives the normalised rule of each selector', () => {
    expect(parseTimingSelector({ every_seconds: 300 })).toEqual({ kind: 'every', everySeconds: 300 });
    expect(parseTimingSelector({ daily: { time: '09:00:00.5', time_zone: 'asia/shanghai' } })).toEqual({
      kind: 'daily',
      time: '09:00:00.500',
      timeZone: 'Asia/Shanghai',
    });
    expect(parseTimingSelector({ weekly: { time: '09:00:00', time_zone: 'UTC', weekdays: [3, 1] } })).toMatchObject({ weekdays: [1, 3] });
    expect(parseTimingSelector({ cron: { expression: '*/1 * * * 7', time_zone: 'UTC' } })).toEqual({
      kind: 'cron',
      expression: '* * * * 0',
      timeZone: 'UTC',
    });
    expect(parseTimingSelector({ at: '2030-01-01T09:00:00+01:00' })).toEqual({ kind: 'at', at: Date.parse('2030-01-01T08:00:00Z') });
  });

  it('refuses what creation refuses, with the same codes', () => {
    expect(codeOf(() => parseTimingSelector({}))).toBe('invalid_selector');
    expect(codeOf(() => parseTimingSelector({ every_seconds: 60, after_seconds: 5 }))).toBe('invalid_selector');
    expect(codeOf(() => parseTimingSelector({ every_seconds: 60, title: 'x' }))).toBe('invalid_selector');
    expect(codeOf(() => parseTimingSelector([]))).toBe('invalid_selector');
    expect(codeOf(() => parseTimingSelector({ every_seconds: 59 }))).toBe('invalid_rule');
    expect(codeOf(() => parseTimingSelector({ cron: { expression: '0 0 * * MON', time_zone: 'UTC' } }))).toBe('invalid_rule');
    expect(codeOf(() => parseTimingSelector({ daily: { time: '09:00:00', time_zone: 'GMT' } }))).toBe('invalid_time_zone');
  });
});
