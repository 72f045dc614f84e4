// Title, prompt, time-of-day and weekday validation shared by creation, update and decoding.
import {
  isStoredTime,
  isStoredWeekdays,
  normalizePrompt,
  normalizeTimeOfDay,
  normalizeTitle,
  normalizeWeekdays,
} from '../../src/domain/args/fields.ts';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return 'no error';
};

describe('title and prompt', () => {
  it('trims; 120 characters are accepted, 121 are invalid_prompt', () => {
    expect(normalizeTitle('  a  ')).toBe('a');
    expect(normalizeTitle(` ${'x'.repeat(120)} `)).toHaveLength(120);
    expect(code(() => normalizeTitle('x'.repeat(121)))).toBe('invalid_prompt');
    expect(code(() => normalizeTitle(' \t '))).toBe('invalid_prompt');
    expect(code(() => normalizeTitle(undefined))).toBe('invalid_prompt');
    expect(code(() => normalizePrompt(''))).toBe('invalid_prompt');
    expect(code(() => normalizePrompt(42))).toBe('invalid_prompt');
    expect(normalizePrompt('\n do it \n')).toBe('do it');
  });
});

describe('time of day', () => {
  it.each([
    ['09:00:00', '09:00:00', 32_400_000],
    ['09:00:00.000', '09:00:00', 32_400_000],
    ['07:05:09.5', '07:05:09.500', 25_509_500],
    ['06:00:00.25', '06:00:00.250', 21_600_250],
    ['23:59:59.999', '23:59:59.999', 86_399_999],
    ['00:00:00.001', '00:00:00.001', 1],
  ])('%s normalises to %s', (given, text, ms) => {
    expect(normalizeTimeOfDay(given)).toEqual({ text, ms });
    expect(isStoredTime(text)).toBe(true);
  });

  it.each(['9:00:00', '09:00', '24:00:00', '25:00:00', '09:60:00', '09:00:60', '09:00:00.1234', '09:00:00.', ' 09:00:00', 900])(
    '%j is invalid_rule',
    (given) => {
      expect(code(() => normalizeTimeOfDay(given))).toBe('invalid_rule');
    },
  );

  it('a stored time must already be normalised', () => {
    expect(isStoredTime('09:00:00.000')).toBe(false);
    expect(isStoredTime('09:00:00.5')).toBe(false);
  });
});

describe('weekdays', () => {
  it('sorts; rejects empty, 0, 8, fractions and duplicates with invalid_rule', () => {
    expect(normalizeWeekdays([3, 1, 7])).toEqual([1, 3, 7]);
    for (const bad of [[], [0], [8], [1.5], [1, 1], '1,3', null, ['1']]) expect(code(() => normalizeWeekdays(bad))).toBe('invalid_rule');
    expect(isStoredWeekdays([1, 3])).toBe(true);
    expect(isStoredWeekdays([3, 1])).toBe(false);
    expect(isStoredWeekdays([])).toBe(false);
  });
});
