// Parsing of the 5-field Vixie dialect: the value sets and star-ness it produces, field
// separators, and every rejected form of docs/selectors.md with a message that names the offending field.

import { ScheduleError } from '../../../src/domain/errors.ts';
import { parseCron } from '../../../src/domain/time/cron/index.ts';

const FIELD_NAME: Record<string, RegExp> = {
  minute: /minute/i,
  hour: /hour/i,
  'day-of-month': /day-of-month/i,
  // 'month' as a word of its own: not the tail of 'day-of-month'
  month: /(?<!day-of-)\bmonth\b/i,
  'day-of-week': /day-of-week/i,
};

function rejection(expression: unknown, field?: string): ScheduleError {
  try {
    parseCron(expression, field);
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    return error as ScheduleError;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to be rejected`);
}

describe('parseCron: value sets', () => {
  it('"*/15 9-17 * * 1-5" matches quarter hours, office hours, weekdays', () => {
    const spec = parseCron('*/15 9-17 * * 1-5');
    expect(spec.minute.values).toEqual([0, 15, 30, 45]);
    expect(spec.hour.values).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect(spec.dayOfMonth.values).toHaveLength(31);
    expect(spec.month.values).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(spec.dayOfWeek.values).toEqual([1, 2, 3, 4, 5]);
    expect([spec.domStar, spec.dowStar]).toEqual([true, false]);
    expect(spec.source).toBe('*/15 9-17 * * 1-5');
  });

  it('day-of-week 7 is Sunday and folds into 0', () => {
    expect(parseCron('0 0 * * 7').dayOfWeek.values).toEqual([0]);
    expect(parseCron('0 0 * * 5-7').dayOfWeek.values).toEqual([0, 5, 6]);
    expect(parseCron('0 0 * * */7').dayOfWeek.values).toEqual([0]);
  });

  it('a field is a star field when its text starts with "*", whatever it matches', () => {
    const spec = parseCron('0 0 */2 * 1');
    expect(spec.domStar).toBe(true);
    expect(spec.dayOfMonth.star).toBe(true);
    expect(spec.dayOfMonth.values).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]);
    expect(parseCron('0 0 1-31 * 1').domStar).toBe(false);
    expect(parseCron('0 0 5,* * 1').domStar).toBe(false);
    expect(parseCron('0 0 * * *,3').dowStar).toBe(true);
  });

  it('steps larger than the range walk only the start; leading zeros are plain numbers', () => {
    expect(parseCron('*/100 * * * *').minute.values).toEqual([0]);
    expect(parseCron('10-20/30 * * * *').minute.values).toEqual([10]);
    expect(parseCron('05 007 * * *').hour.values).toEqual([7]);
  });

  it('lookup tables give the next and previous matched value', () => {
    const hour = parseCron('0 3,7,22 * * *').hour;
    expect([hour.next[0], hour.next[4], hour.next[22], hour.next[23], hour.next[24]]).toEqual([3, 7, 22, -1, -1]);
    expect([hour.prev[2], hour.prev[3], hour.prev[21], hour.prev[23]]).toEqual([-1, 3, 7, 22]);
  });
});

describe('parseCron: field separators', () => {
  it('runs of spaces and tabs separate fields; leading and trailing ones are ignored', () => {
    const spec = parseCron(' \t0  9\t* *   1-5 ');
    expect(spec.minute.values).toEqual([0]);
    expect(spec.hour.values).toEqual([9]);
    expect(spec.dayOfWeek.values).toEqual([1, 2, 3, 4, 5]);
  });

  it('a line break or other whitespace is refused', () => {
    for (const text of ['0 9 * *\n1-5', '0\u00a09 * * *', '0 9 * * *\n']) {
      const error = rejection(text);
      expect(error.code).toBe('invalid_rule');
      expect(error.message).toMatch(/whitespace/);
    }
  });
});

describe('parseCron: rejected forms -> invalid_rule naming the field', () => {
  // [expression, offending field, what the message says besides the field]
  const rejected: Array<[string, string, RegExp]> = [
    ['0 0 L * *', 'day-of-month', /L, W, # or \?, which are not supported/],
    ['0 0 15W * *', 'day-of-month', /L, W, # or \?, which are not supported/],
    ['0 0 * * 1#2', 'day-of-week', /L, W, # or \?, which are not supported/],
    ['0 0 * * 5L', 'day-of-week', /L, W, # or \?, which are not supported/],
    ['0 0 ? * 1', 'day-of-month', /L, W, # or \?, which are not supported/],
    ['0 0 * JAN *', 'month', /names are not supported/],
    ['0 0 * jan-mar *', 'month', /names are not supported/],
    ['0 0 * * Mon-Fri', 'day-of-week', /names are not supported/],
    ['0 0 * * MON', 'day-of-week', /names are not supported/],
    ['0 0 * * sun', 'day-of-week', /names are not supported/],
    ['0 0 * * wed', 'day-of-week', /names are not supported/],
    ['60 * * * *', 'minute', /value 60, which is out of range/],
    ['* 24 * * *', 'hour', /value 24, which is out of range/],
    ['* * 0 * *', 'day-of-month', /value 0, which is out of range/],
    ['* * 32 * *', 'day-of-month', /value 32, which is out of range/],
    ['* * * 0 *', 'month', /value 0, which is out of range/],
    ['* * * 13 *', 'month', /value 13, which is out of range/],
    ['* * * * 8', 'day-of-week', /value 8, which is out of range/],
    ['0-60 * * * *', 'minute', /value 60, which is out of range/],
    ['5-1 * * * *', 'minute', /inverted range 5-1/],
    ['* 10-2 * * *', 'hour', /inverted range 10-2/],
    ['* * 31-1 * *', 'day-of-month', /inverted range 31-1/],
    ['* * * 12-1 *', 'month', /inverted range 12-1/],
    ['* * * * 6-0', 'day-of-week', /inverted range 6-0/],
    ['*/0 * * * *', 'minute', /zero step/],
    ['* * * * 1-5/0', 'day-of-week', /zero step/],
    ['* */00 * * *', 'hour', /zero step/],
    ['1,,2 * * * *', 'minute', /empty list item/],
    ['1, * * * *', 'minute', /empty list item/],
    [',1 * * * *', 'minute', /empty list item/],
    ['* * , * *', 'day-of-month', /empty list item/],
    ['* * * 1- *', 'month', /is not valid/],
    ['*/ * * * *', 'minute', /no step after "\/"/],
    ['* * * * -1', 'day-of-week', /is not valid/],
    ['5/15 * * * *', 'minute', /a step needs \* or a range before it \(write \*\/15 or 5-59\/15\)/],
    ['* 1/2 * * *', 'hour', /a step needs \* or a range/],
    ['*/2/3 * * * *', 'minute', /invalid step/],
    ['*/x * * * *', 'minute', /invalid step/],
    ['* * * * 1.5', 'day-of-week', /is not valid/],
    ['*-5 * * * *', 'minute', /is not valid/],
    ['+5 * * * *', 'minute', /is not valid/],
    ['* H * * *', 'hour', /is not valid/],
  ];
  for (const [expression, field, problem] of rejected) {
    it(`'${expression}' is refused in the ${field} field`, () => {
      const error = rejection(expression);
      expect(error.code).toBe('invalid_rule');
      expect(error.message).toMatch(FIELD_NAME[field]!);
      expect(error.message).toMatch(problem);
      expect(error.message).toContain('cron.expression');
    });
  }

  // Forms that are not one field's fault: the message describes the five fields.
  const shapes: Array<[string, RegExp]> = [
    ['@daily', /macros such as @daily are not supported/],
    ['@hourly', /macros such as @daily are not supported/],
    ['@reboot', /macros such as @daily are not supported/],
    ['0 0 0 * * *', /has 6 fields; it needs 5 fields .*; seconds and year fields are not supported/],
    ['0 0 0 * * * 2030', /has 7 fields; it needs 5 fields/],
    ['* * * *', /has 4 fields; it needs 5 fields/],
    ['*', /has 1 field; it needs 5 fields/],
    ['', /is empty/],
    ['   ', /is empty/],
  ];
  for (const [expression, problem] of shapes) {
    it(`'${expression}' is refused and the message lists the five fields`, () => {
      const error = rejection(expression);
      expect(error.code).toBe('invalid_rule');
      expect(error.message).toMatch(problem);
      expect(error.message).toContain('(minute hour day-of-month month day-of-week)');
    });
  }

  it('a value that is not a string is refused as invalid_rule', () => {
    for (const value of [undefined, null, 5, ['*', '*', '*', '*', '*'], { expression: '* * * * *' }]) {
      const error = rejection(value);
      expect(error.code).toBe('invalid_rule');
      expect(error.message).toMatch(/cron\.expression must be a string/);
    }
  });

  it('the argument name given is used in the message', () => {
    expect(rejection('61 * * * *', 'change.expression').message).toMatch(/^change\.expression: the minute field "61"/);
    expect(rejection(42, 'change.expression').message).toMatch(/^change\.expression must be a string/);
  });

  it('the month message names the month on its own, not only inside "day-of-month"', () => {
    const message = rejection('* * * 13 *').message;
    expect(message).toMatch(/(?<!day-of-)\bmonth\b/);
    expect(message).not.toMatch(/day-of-month|day-of-week|minute|hour/);
  });
});
