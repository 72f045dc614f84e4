// Every offset transition of every accepted zone from 1971 to 2036, checked against Temporal: the
// transitions the segment cache reports, the segments on both sides of each one when the zone is
// first used at that transition, and the resolution of the wall times around it (the edges of its
// gap or overlap, and an hour either side). A wall time near a transition with no other within two
// days resolves by that transition's offsets alone; near one with a close neighbour, and at every
// tenth transition, Temporal resolves it.
import type { Transition } from '../../src/domain/time/transitions.ts';
import { transitionsBetween } from '../../src/domain/time/transitions.ts';
import { type WallResolution, ZoneRules } from '../../src/domain/time/zoneRules.ts';
import { temporalResolution, temporalTransitions, ZONES } from './zoneReference.ts';

const FROM = Date.UTC(1971, 0, 1);
const TO = Date.UTC(2037, 0, 1);
const HOUR = 3_600_000;
const TWO_DAYS = 48 * HOUR;

/** How a wall time resolves when `t` is the only transition within a day of it. */
function resolutionNear(t: Transition, wall: number): WallResolution {
  const before = wall - t.before < t.at ? wall - t.before : undefined;
  const after = wall - t.after >= t.at ? wall - t.after : undefined;
  if (before !== undefined && after !== undefined) return { kind: 'overlap', earlier: before, later: after };
  const instant = before ?? after;
  return instant === undefined ? { kind: 'gap' } : { kind: 'exact', instant };
}

it(`every transition 1971–2036 in ${ZONES.length} zones agrees with Temporal`, () => {
  const mismatches: string[] = [];
  const differ = (what: string, got: unknown, expected: unknown) => {
    if (JSON.stringify(got) !== JSON.stringify(expected)) mismatches.push(`${what}: ${JSON.stringify(got)} ≠ ${JSON.stringify(expected)}`);
  };
  let checked = 0;
  let walls = 0;
  for (const zone of ZONES) {
    const expected = temporalTransitions(zone, FROM, TO);
    differ(`${zone} transitions`, transitionsBetween(new ZoneRules(zone), FROM, TO), expected);
    expected.forEach((t, i) => {
      const where = `${zone} at ${new Date(t.at).toISOString()}`;
      const firstUse = new ZoneRules(zone);
      const after = firstUse.segmentAt(t.at);
      const before = firstUse.segmentAt(t.at - 1);
      differ(`${where}, segment from it`, [after.start, after.offset], [t.at, t.after]);
      differ(`${where}, segment before it`, [before.end, before.offset], [t.at, t.before]);
      const isolated = (expected[i - 1]?.at ?? -Infinity) < t.at - TWO_DAYS && (expected[i + 1]?.at ?? Infinity) > t.at + TWO_DAYS;
      const low = t.at + Math.min(t.before, t.after);
      const high = t.at + Math.max(t.before, t.after);
      for (const wall of [low - HOUR, low - 1, low, high - 1, high, high + HOUR]) {
        const reference = isolated && i % 10 !== 0 ? resolutionNear(t, wall) : temporalResolution(zone, wall);
        differ(`${where}, wall ${new Date(wall).toISOString()}`, firstUse.resolveWall(wall), reference);
        walls++;
      }
      checked++;
    });
  }
  console.log(`zone transitions 1971–2036: ${checked} transitions and ${walls} wall times agreed with Temporal`);
  expect(mismatches.slice(0, 20)).toEqual([]);
  expect(checked).toBeGreaterThan(10_000);
}, 300_000);
