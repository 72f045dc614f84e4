// croner 11 as a differential reference (it is not the engine): where the two dialects agree —
// instants away from DST transitions, the Vixie day rule passed as croner's `domAndDow` — both
// give the same next target. The cases below it pin the three places where croner does not follow
// docs/selectors.md, which is why the project has its own engine.
import { Cron } from 'croner';
import { nextCronAfter, parseCron } from '../../../src/domain/time/cron/index.ts';
import { zoneRules } from '../../../src/domain/time/zoneRules.ts';

const ours = (expression: string, zone: string, after: string): string | null => {
  const next = nextCronAfter(parseCron(expression), zoneRules(zone), Date.parse(after));
  return next === null ? null : new Date(next).toISOString();
};
const theirs = (expression: string, zone: string, after: string, domAndDow: boolean): string | null =>
  new Cron(expression, { timezone: zone, domAndDow }).nextRun(new Date(after))?.toISOString() ?? null;
const starField = (field: string | undefined) => field?.startsWith('*') ?? false;

describe('croner 11 agrees away from DST and dialect differences', () => {
  const expressions = [
    '*/15 9-17 * * 1-5',
    '0 9 * * *',
    '30 18 * * 0,6',
    '5 4 1 * *',
    '0 0 1 1 *',
    '0 12 13 * 5',
    '*/5 * * * *',
    '0 8-18/2 * 6-8 *',
  ];
  const zones = ['UTC', 'America/New_York', 'Europe/London', 'Asia/Shanghai', 'Asia/Kolkata'];
  const instants = ['2030-01-15T10:07:00.000Z', '2030-06-20T23:59:30.000Z', '2031-02-01T00:00:00.000Z'];
  for (const zone of zones) {
    it(`${expressions.length} expressions × ${instants.length} instants in ${zone}`, () => {
      for (const expression of expressions) {
        const [, , dom, , dow] = expression.split(' ');
        for (const after of instants) {
          expect(ours(expression, zone, after), `${expression} after ${after}`).toBe(
            theirs(expression, zone, after, starField(dom) || starField(dow)),
          );
        }
      }
    });
  }
});

describe('where croner 11 differs from docs/selectors.md', () => {
  it('30 2 * * * in America/New_York: croner shifts the 2027-03-14 gap time, this project skips the date', () => {
    expect(theirs('30 2 * * *', 'America/New_York', '2027-03-13T12:00:00.000Z', true)).toBe('2027-03-14T07:00:00.000Z');
    expect(ours('30 2 * * *', 'America/New_York', '2027-03-13T12:00:00.000Z')).toBe('2027-03-15T06:30:00.000Z');
  });

  it('30 * * * * in America/New_York: croner fires the repeated 01:30 of 2027-11-07 twice, this project once', () => {
    expect(theirs('30 * * * *', 'America/New_York', '2027-11-07T05:30:00.000Z', true)).toBe('2027-11-07T06:30:00.000Z');
    expect(ours('30 * * * *', 'America/New_York', '2027-11-07T05:30:00.000Z')).toBe('2027-11-07T07:30:00.000Z');
  });

  it('0 0 */2 * 1 in UTC: croner (default) treats */2 as restricted (OR), this project as a star field (AND)', () => {
    expect(theirs('0 0 */2 * 1', 'UTC', '2027-01-01T12:00:00.000Z', false)).toBe('2027-01-03T00:00:00.000Z');
    expect(ours('0 0 */2 * 1', 'UTC', '2027-01-01T12:00:00.000Z')).toBe('2027-01-11T00:00:00.000Z');
  });
});
