// The canonical stored form of cron expressions (docs/selectors.md): its documented examples, a table of
// choice, and the decoder's fixed-point check.

import { ScheduleError } from '../../../src/domain/errors.ts';
import { canonicalizeCron, isCanonicalCron } from '../../../src/domain/time/cron/index.ts';

describe('canonicalizeCron: docs/selectors.md examples', () => {
  const examples: Array<[string, string]> = [
    ['*/1 * * * *', '* * * * *'],
    ['0-59 * * * *', '0-59 * * * *'],
    ['*/15,*/20 * * * *', '*/15,20,40 * * * *'],
    ['0 0 * * 1-7/2', '0 0 * * 0-1,3,5'],
    ['5,5,6,7 * * * *', '5-7 * * * *'],
    ['0 1,3,5 * * *', '0 1-5/2 * * *'],
    ['* * * * 7', '* * * * 0'],
    ['0 0 */2 * 1', '0 0 */2 * 1'],
    ['0 0 1-31/2 * 1', '0 0 1-31/2 * 1'],
  ];
  for (const [input, expected] of examples) {
    it(`'${input}' -> '${expected}'`, () => {
      expect(canonicalizeCron(input)).toBe(expected);
    });
  }

  it("'MON' in day-of-week is invalid_rule", () => {
    expect(() => canonicalizeCron('0 0 * * MON')).toThrow(ScheduleError);
    expect(() => canonicalizeCron('0 0 * * MON')).toThrow(/day-of-week/);
  });
});

describe('canonicalizeCron: the table of canonical forms', () => {
  const table: Array<[string, string]> = [
    ['*/15 9-17 * * 1-5', '*/15 9-17 * * 1-5'],
    ['0,20,40 * * * *', '0-40/20 * * * *'],
    ['*/20 * * * *', '*/20 * * * *'],
    ['*/30,15 * * * *', '*/30,15 * * * *'],
    ['30,15,*/30 * * * *', '0-30/15 * * * *'],
    ['*/10,5 * * * *', '*/10,5 * * * *'],
    ['*/2,*/3 * * * *', '*/2,3-57/6 * * * *'],
    ['0-10/5,30 * * * *', '0,5,10,30 * * * *'],
    ['1-5/1 * * * *', '1-5 * * * *'],
    ['0-59/2 * * * *', '0-58/2 * * * *'],
    ['*/5,*/10,*/15 * * * *', '*/5 * * * *'],
    ['0 */6 * * *', '0 */6 * * *'],
    ['0 0,6,12,18 * * *', '0 0-18/6 * * *'],
    ['0 0 1,2,4 * *', '0 0 1-2,4 * *'],
    ['0 0 1 */3 *', '0 0 1 */3 *'],
    ['0 0 1 1,4,7,10 *', '0 0 1 1-10/3 *'],
    ['0 0 * */1 *', '0 0 * * *'],
    ['0 0 * * 5-7', '0 0 * * 0,5-6'],
    ['0 0 * * 0-7', '0 0 * * 0-6'],
    ['0 0 * * 1,7', '0 0 * * 0-1'],
    ['0 0 * * 0,2,4,6', '0 0 * * 0-6/2'],
    ['0 12 * * */2', '0 12 * * */2'],
    ['0 0 * * *,3', '0 0 * * *'],
    ['0 0 5,* * 1', '0 0 1-31 * 1'],
    ['7 7 7 7 7', '7 7 7 7 0'],
  ];
  for (const [input, expected] of table) {
    it(`'${input}' -> '${expected}', a fixed point`, () => {
      expect(canonicalizeCron(input)).toBe(expected);
      expect(canonicalizeCron(expected)).toBe(expected);
      expect(isCanonicalCron(expected)).toBe(true);
    });
  }
});

describe('canonicalizeCron: star-steps and runs', () => {
  const cases: Array<[string, string, string]> = [
    ['day-of-week */7 matches only Sunday and keeps its star', '0 0 1 * */7', '0 0 1 * */7'],
    ['day-of-week */8 walks only Sunday over 0-7', '0 0 1 * */8', '0 0 1 * */7'],
    ['day-of-week */3 over 0-7 matches 0,3,6', '0 0 * * */3', '0 0 * * */3'],
    ['day-of-week */4 over 0-7 matches 0,4 (7 folds into 0)', '0 0 * * */4', '0 0 * * */4'],
    ['minute */100 walks only 0', '*/100 * * * *', '*/60 * * * *'],
    ['minute */45 matches 0,45', '*/45 * * * *', '*/45 * * * *'],
    ['hour */5 matches 0,5,10,15,20', '0 */5 * * *', '0 */5 * * *'],
    ['month */12 matches January only', '0 0 1 */12 *', '0 0 1 */12 *'],
    ['day-of-month */31 matches the 1st only', '0 0 */31 * 1', '0 0 */31 * 1'],
    ['a star field with extra values keeps them after the walk', '*/20,5-7 * * * *', '*/20,5-7 * * * *'],
    ['two values are never a progression', '0,30 * * * *', '0,30 * * * *'],
    ['a progression with step 1 is a run', '1,2,3 * * * *', '1-3 * * * *'],
    ['a single non-star value stays', '59 23 31 12 6', '59 23 31 12 6'],
    ['a whole-range list that does not start with * stays a run', '0-29,30-59 * * * *', '0-59 * * * *'],
    ['spaces and tabs between fields become single spaces', ' 0\t 9  *  *  1-5 ', '0 9 * * 1-5'],
  ];
  for (const [title, input, expected] of cases) {
    it(`${title}: '${input}' -> '${expected}'`, () => {
      expect(canonicalizeCron(input)).toBe(expected);
    });
  }
});

describe('isCanonicalCron', () => {
  it('accepts canonical text and refuses other spellings, invalid text and extra spaces', () => {
    expect(isCanonicalCron('*/15 9-17 * * 1-5')).toBe(true);
    expect(isCanonicalCron('0 0 */2 * 1')).toBe(true);
    expect(isCanonicalCron('*/1 * * * *')).toBe(false);
    expect(isCanonicalCron('0 0 * * 7')).toBe(false);
    expect(isCanonicalCron('0 1,3,5 * * *')).toBe(false);
    expect(isCanonicalCron(' * * * * *')).toBe(false);
    expect(isCanonicalCron('*  * * * *')).toBe(false);
    expect(isCanonicalCron('0 0 L * *')).toBe(false);
    expect(isCanonicalCron('')).toBe(false);
  });
});
