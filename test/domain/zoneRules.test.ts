// Offsets and wall-clock resolution per zone: gaps, overlaps, skipped dates, and the segment cache.
import { Temporal } from 'temporal-polyfill';
import { zoneRules } from '../../src/domain/time/zoneRules.ts';

const wall = (local: string) => Date.parse(`${local}Z`);
const at = (iso: string) => Date.parse(iso);

describe('resolveWall', () => {
  it('America/New_York 2030-03-10 02:30 is in the spring-forward gap', () => {
    expect(zoneRules('America/New_York').resolveWall(wall('2030-03-10T02:30:00'))).toEqual({ kind: 'gap' });
  });

  it('America/New_York 2030-11-03 01:30 exists twice: EDT 05:30Z and EST 06:30Z', () => {
    expect(zoneRules('America/New_York').resolveWall(wall('2030-11-03T01:30:00'))).toEqual({
      kind: 'overlap',
      earlier: at('2030-11-03T05:30:00Z'),
      later: at('2030-11-03T06:30:00Z'),
    });
  });

  it('America/New_York: the last millisecond before each transition and the first after are exact', () => {
    const ny = zoneRules('America/New_York');
    expect(ny.resolveWall(wall('2030-03-10T01:59:59.999'))).toEqual({ kind: 'exact', instant: at('2030-03-10T06:59:59.999Z') });
    expect(ny.resolveWall(wall('2030-03-10T03:00:00'))).toEqual({ kind: 'exact', instant: at('2030-03-10T07:00:00Z') });
    expect(ny.resolveWall(wall('2030-11-03T00:59:59.999'))).toEqual({ kind: 'exact', instant: at('2030-11-03T04:59:59.999Z') });
    expect(ny.resolveWall(wall('2030-11-03T02:00:00'))).toEqual({ kind: 'exact', instant: at('2030-11-03T07:00:00Z') });
  });

  it('Pacific/Apia skipped the calendar date 2011-12-30 entirely', () => {
    const apia = zoneRules('Pacific/Apia');
    expect(apia.resolveWall(wall('2011-12-30T00:00:00'))).toEqual({ kind: 'gap' });
    expect(apia.resolveWall(wall('2011-12-30T12:00:00'))).toEqual({ kind: 'gap' });
    expect(apia.resolveWall(wall('2011-12-29T23:59:00'))).toEqual({ kind: 'exact', instant: at('2011-12-30T09:59:00Z') });
    expect(apia.resolveWall(wall('2011-12-31T00:00:00'))).toEqual({ kind: 'exact', instant: at('2011-12-30T10:00:00Z') });
  });

  it('Australia/Lord_Howe has a 30-minute gap and a 30-minute overlap', () => {
    const lh = zoneRules('Australia/Lord_Howe');
    expect(lh.resolveWall(wall('2027-10-03T02:15:00'))).toEqual({ kind: 'gap' });
    expect(lh.firingInstant(wall('2027-04-04T01:45:00'))).toBe(at('2027-04-03T14:45:00Z'));
  });

  it('UTC is one segment with offset 0', () => {
    const utc = zoneRules('UTC');
    expect(utc.segmentAt(0)).toEqual({ start: Number.NEGATIVE_INFINITY, end: Number.POSITIVE_INFINITY, offset: 0 });
    expect(utc.firingInstant(wall('9999-12-31T23:59:59.999'))).toBe(at('9999-12-31T23:59:59.999Z'));
  });
});

describe('offsetAt agrees with Temporal', () => {
  const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata', 'Africa/Casablanca'];
  for (const zone of zones) {
    it(`${zone}: 400 instants across 1900-2100 and at every transition instant`, () => {
      const rules = zoneRules(zone);
      for (let i = 0; i < 400; i++) {
        const ms = at('1900-01-01T00:00:00Z') + Math.floor(i * 15.78e9) + i * 7919;
        const expected = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).offsetNanoseconds / 1e6;
        expect(rules.offsetAt(ms), new Date(ms).toISOString()).toBe(expected);
      }
      let zdt = Temporal.Instant.from('2020-01-01T00:00:00Z').toZonedDateTimeISO(zone);
      for (let i = 0; i < 10; i++) {
        const next = zdt.getTimeZoneTransition('next');
        if (next === null) break;
        expect(rules.offsetAt(next.epochMilliseconds)).toBe(next.offsetNanoseconds / 1e6);
        expect(rules.offsetAt(next.epochMilliseconds - 1)).toBe(zdt.offsetNanoseconds / 1e6);
        zdt = next;
      }
    });
  }
});
