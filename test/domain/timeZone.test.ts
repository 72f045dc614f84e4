// Which zone names are accepted, and the id each is stored as (docs/selectors.md).
import { Temporal } from 'temporal-polyfill';
import { ScheduleError } from '../../src/domain/errors.ts';
import { canonicalTimeZone, normalizeTimeZone } from '../../src/domain/time/timeZone.ts';

describe('canonicalTimeZone', () => {
  it.each([
    ['UTC', 'UTC'],
    ['utc', 'UTC'],
    ['asia/shanghai', 'Asia/Shanghai'],
    ['ASIA/SHANGHAI', 'Asia/Shanghai'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['Asia/Calcutta', 'Asia/Calcutta'],
    ['america/argentina/buenos_aires', 'America/Argentina/Buenos_Aires'],
    ['Etc/UTC', 'Etc/UTC'],
    ['us/eastern', 'US/Eastern'],
    ['europe/kyiv', 'Europe/Kyiv'],
  ])('%s is stored as %s', (given, stored) => {
    expect(canonicalTimeZone(given)).toBe(stored);
  });

  // Names the runtime lists are answered from that list, the others by temporal-polyfill: both
  // must give the id temporal-polyfill gives.
  it('every zone the runtime lists, in any letter case, is stored as temporal-polyfill reports it', () => {
    const byTemporal = (name: string): string | null => {
      if (!name.includes('/')) return null;
      try {
        const id = Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(name).timeZoneId;
        return id.toLowerCase() === name.toLowerCase() ? id : null;
      } catch {
        return null;
      }
    };
    const listed = Intl.supportedValuesOf('timeZone');
    expect(listed.length).toBeGreaterThan(300);
    const names = listed.flatMap((zone) => [zone, zone.toLowerCase(), zone.toUpperCase()]);
    const differing = names.filter((name) => canonicalTimeZone(name) !== byTemporal(name));
    expect(differing).toEqual([]);
  });

  it.each(['GMT', 'EST', 'EST5EDT', '+08:00', '-05:00', 'Z', 'Mars/Base', 'Asia/', '/', '', 'Asia/Shanghai ', 'Europe/Berlin\n'])(
    '%j is not accepted',
    (given) => {
      expect(canonicalTimeZone(given)).toBeNull();
    },
  );
});

describe('normalizeTimeZone', () => {
  it('throws invalid_time_zone naming the field and what is accepted', () => {
    let error: unknown;
    try {
      normalizeTimeZone('+08:00', 'daily.time_zone');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScheduleError);
    expect((error as ScheduleError).code).toBe('invalid_time_zone');
    expect((error as ScheduleError).message).toContain('daily.time_zone');
    expect((error as ScheduleError).message).toContain('IANA');
  });

  it('a non-string zone is invalid_time_zone', () => {
    expect(() => normalizeTimeZone(8)).toThrow(expect.objectContaining({ code: 'invalid_time_zone' }));
  });
});
