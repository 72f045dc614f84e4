// The segment cache against Temporal at random instants in every accepted zone, most from 1800 to
// 2100 and some up to the end of 9999,
// each asked of a fresh ZoneRules (a first use) and of one shared per zone (after other instants):
// the offset, the segment holding the instant (one offset from its start to its end, Temporal
// finding no transition inside it), the resolution of the wall times around it, and the
// transitions within a year either side. Instants are drawn from a fixed seed.
import fc from 'fast-check';
import { transitionsBetween } from '../../src/domain/time/transitions.ts';
import { ZoneRules } from '../../src/domain/time/zoneRules.ts';
import { runs } from '../support/runs.ts';
import { temporalOffset, temporalResolution, temporalTransitions, ZONES } from './zoneReference.ts';

const HOUR = 3_600_000;
const YEAR = 365 * 24 * HOUR;
const FROM = Date.UTC(1800, 0, 1);
const TO = Date.UTC(2100, 0, 1);
const LAST = Date.UTC(9999, 11, 31);
/** temporal-polyfill looks for transitions only from 1843-03 on; before it, offsets alone are compared. */
const TRANSITIONS_FROM = -4e12 + YEAR;

const PER_ZONE = runs({ short: 4, long: 40 });

it(`${PER_ZONE} random instants 1800–9999 in each of ${ZONES.length} zones agree with Temporal`, () => {
  const mismatches: string[] = [];
  const differ = (what: string, got: unknown, expected: unknown) => {
    if (JSON.stringify(got) !== JSON.stringify(expected)) mismatches.push(`${what}: ${JSON.stringify(got)} ≠ ${JSON.stringify(expected)}`);
  };
  const instant = fc.oneof(
    { weight: 3, arbitrary: fc.noBias(fc.integer({ min: FROM, max: TO })) },
    { weight: 1, arbitrary: fc.noBias(fc.integer({ min: TO, max: LAST })) },
  );
  const instants = fc.sample(instant, { seed: 20_360_102, numRuns: PER_ZONE * ZONES.length });
  let checked = 0;
  ZONES.forEach((zone, z) => {
    const shared = new ZoneRules(zone);
    for (const t of instants.slice(z * PER_ZONE, (z + 1) * PER_ZONE)) {
      const where = `${zone} at ${new Date(t).toISOString()}`;
      const fresh = new ZoneRules(zone);
      const segment = fresh.segmentAt(t);
      differ(`${where}, the same segment after other instants`, shared.segmentAt(t), segment);
      differ(`${where}, offset`, segment.offset, temporalOffset(zone, t));
      const last = Math.min(segment.end - 1, LAST);
      if (Number.isFinite(segment.start))
        differ(`${where}, offset at the segment's start`, temporalOffset(zone, segment.start), segment.offset);
      differ(`${where}, offset at the segment's end`, temporalOffset(zone, last), segment.offset);
      if (segment.start >= TRANSITIONS_FROM)
        differ(`${where}, transitions inside the segment`, temporalTransitions(zone, segment.start, last), []);
      const wall = t + segment.offset;
      for (const w of [wall - HOUR, wall, wall + HOUR]) {
        const expected = temporalResolution(zone, w);
        differ(`${where}, wall ${new Date(w).toISOString()}`, fresh.resolveWall(w), expected);
        differ(`${where}, wall ${new Date(w).toISOString()} after other instants`, shared.resolveWall(w), expected);
      }
      if (t - YEAR >= TRANSITIONS_FROM) {
        const expected = temporalTransitions(zone, t - YEAR, t + YEAR);
        differ(`${where}, transitions`, transitionsBetween(new ZoneRules(zone), t - YEAR, t + YEAR), expected);
        differ(`${where}, transitions after other instants`, transitionsBetween(shared, t - YEAR, t + YEAR), expected);
      }
      checked++;
    }
  });
  console.log(`zone offsets 1800–9999: ${checked} instants agreed with Temporal`);
  expect(mismatches.slice(0, 20)).toEqual([]);
}, 300_000);
