// The shape of the segment cache: a zone that keeps one offset for decades is cut into bounded
// segments that follow one another (a first use reads only around its instant), the two ends of
// the timeline are unbounded segments, and a segment does not depend on what was asked before.
import { transitionsBetween } from '../../src/domain/time/transitions.ts';
import { ZoneRules } from '../../src/domain/time/zoneRules.ts';

const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

describe('segments', () => {
  it('Asia/Kolkata (one offset since 1945) is walked in bounded segments with no transition between them', () => {
    const kolkata = new ZoneRules('Asia/Kolkata');
    const seg = kolkata.segmentAt(at('2030-06-01T00:00:00Z'));
    expect(Number.isFinite(seg.start) && Number.isFinite(seg.end)).toBe(true);
    expect(seg.offset).toBe(5.5 * HOUR);
    expect(kolkata.segmentAt(seg.end)).toMatchObject({ start: seg.end, offset: 5.5 * HOUR });
    expect(kolkata.segmentAt(seg.start - 1)).toMatchObject({ end: seg.start, offset: 5.5 * HOUR });
    expect(transitionsBetween(kolkata, at('1950-01-01T00:00:00Z'), at('2100-01-01T00:00:00Z'))).toEqual([]);
  });

  it('the first and last instants of Temporal’s range lie in unbounded segments', () => {
    const ny = new ZoneRules('America/New_York');
    expect(ny.segmentAt(-8.64e15).start).toBe(Number.NEGATIVE_INFINITY);
    expect(ny.segmentAt(8.64e15).end).toBe(Number.POSITIVE_INFINITY);
  });

  it('America/New_York keeps daylight saving time in 9999 (the zone data is read, not extrapolated)', () => {
    const ny = new ZoneRules('America/New_York');
    expect(ny.offsetAt(at('9999-07-01T12:00:00Z'))).toBe(-4 * HOUR);
    expect(ny.offsetAt(at('9999-12-01T12:00:00Z'))).toBe(-5 * HOUR);
  });

  it('a segment is the same whatever was asked of the zone before', () => {
    const instants = Array.from({ length: 60 }, (_, i) => at('1900-01-01T00:00:00Z') + i * 1.7e11 + i * 7919);
    const forward = new ZoneRules('Europe/Vienna');
    const backward = new ZoneRules('Europe/Vienna');
    const expected = instants.map((t) => forward.segmentAt(t));
    const reversed = [...instants].reverse().map((t) => backward.segmentAt(t));
    expect(reversed.reverse()).toEqual(expected);
    expect(instants.map((t) => new ZoneRules('Europe/Vienna').segmentAt(t))).toEqual(expected);
  });

  it('a zone id in another letter case reads the same offsets (Intl takes any case)', () => {
    const id = 'America/Argentina/Tucuman';
    const t = at('1991-10-20T03:00:00Z');
    expect(new ZoneRules(id.toLowerCase()).segmentAt(t)).toEqual(new ZoneRules(id).segmentAt(t));
  });
});
