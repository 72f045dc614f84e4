// latestCronAtOrBefore: the latest firing instant inside [notBefore, at], as catch-up uses it for
// the latest missed occurrence. Same wall-clock rules as the forward search: a repeated wall time
// counts only at its earlier instant, a wall time in a gap never counts.
import { latestCronAtOrBefore, parseCron } from '../../../src/domain/time/cron/index.ts';
import { MAX_INSTANT_MS } from '../../../src/domain/time/instant.ts';
import { zoneRules } from '../../../src/domain/time/zoneRules.ts';

function latest(expression: string, zone: string, at: string | number, notBefore: string | number): string | null {
  const ms = (v: string | number) => (typeof v === 'number' ? v : Date.parse(v));
  const found = latestCronAtOrBefore(parseCron(expression), zoneRules(zone), ms(at), ms(notBefore));
  return found === null ? null : new Date(found).toISOString();
}

describe('latestCronAtOrBefore', () => {
  it('30 1 * * * in America/New_York: after fall-back the repeated 01:30 EST does not count, the 01:30 EDT does', () => {
    expect(latest('30 1 * * *', 'America/New_York', '2027-11-07T06:45:00.000Z', '2027-11-01T00:00:00.000Z')).toBe(
      '2027-11-07T05:30:00.000Z',
    );
  });

  it('*/15 * * * * in America/New_York at 06:59Z on 2027-11-07 is 01:45 EDT (05:45Z), not the repeat at 06:45Z', () => {
    expect(latest('*/15 * * * *', 'America/New_York', '2027-11-07T06:59:00.000Z', '2027-11-07T00:00:00.000Z')).toBe(
      '2027-11-07T05:45:00.000Z',
    );
  });

  it('30 2 * * * in America/New_York: the 2027-03-14 gap day has no occurrence, so the latest is the day before', () => {
    expect(latest('30 2 * * *', 'America/New_York', '2027-03-14T12:00:00.000Z', '2027-03-01T00:00:00.000Z')).toBe(
      '2027-03-13T07:30:00.000Z',
    );
  });

  it('0 9 * * * in Asia/Shanghai: both ends of the window are inclusive', () => {
    const firing = '2027-05-10T01:00:00.000Z';
    expect(latest('0 9 * * *', 'Asia/Shanghai', firing, firing)).toBe(firing);
    expect(latest('0 9 * * *', 'Asia/Shanghai', firing, '2027-05-01T00:00:00.000Z')).toBe(firing);
    expect(latest('0 9 * * *', 'Asia/Shanghai', Date.parse(firing) - 1, '2027-05-10T00:00:00.000Z')).toBeNull();
    expect(latest('0 9 * * *', 'Asia/Shanghai', '2027-05-10T12:00:00.000Z', Date.parse(firing) + 1)).toBeNull();
  });

  it('an empty or inverted window has no occurrence', () => {
    expect(latest('* * * * *', 'UTC', '2027-05-10T12:00:30.000Z', '2027-05-10T12:00:01.000Z')).toBeNull();
    expect(latest('* * * * *', 'UTC', '2027-05-10T12:00:00.000Z', '2027-05-10T13:00:00.000Z')).toBeNull();
  });

  it('0 12 * * * in America/New_York on 1883-11-18 is local mean time noon, before railway time repeated it', () => {
    expect(latest('0 12 * * *', 'America/New_York', '1883-11-18T18:00:00.000Z', '1883-11-17T00:00:00.000Z')).toBe(
      '1883-11-18T16:56:02.000Z',
    );
  });

  it('30 2 8-14 3 */7 in America/New_York, looking back from 9999: the last firing was 2006-03-12', () => {
    expect(latest('30 2 8-14 3 */7', 'America/New_York', MAX_INSTANT_MS, '2000-01-01T00:00:00.000Z')).toBe('2006-03-12T07:30:00.000Z');
    expect(latest('30 2 8-14 3 */7', 'America/New_York', MAX_INSTANT_MS, '2030-01-01T00:00:00.000Z')).toBeNull();
  });

  it('0 0 1 1 * in UTC: the window is clipped to years 0001-9999', () => {
    expect(latest('0 0 1 1 *', 'UTC', '0001-06-01T00:00:00.000Z', Number.NEGATIVE_INFINITY)).toBe('0001-01-01T00:00:00.000Z');
    expect(latest('0 0 1 1 *', 'UTC', Number.POSITIVE_INFINITY, '9000-01-01T00:00:00.000Z')).toBe('9999-01-01T00:00:00.000Z');
  });

  it('0 0 30 2 * can never match and has no occurrence in any window', () => {
    expect(latest('0 0 30 2 *', 'UTC', '2030-06-01T00:00:00.000Z', '0001-01-01T00:00:00.000Z')).toBeNull();
  });
});
