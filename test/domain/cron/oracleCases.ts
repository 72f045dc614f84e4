// Random (expression, zone, instant) cases for the differential tests against the project's
// brute-force oracle (test/support/oracle): every zone the runtime knows that the project
// accepts, instants weighted toward DST transitions, and far years. Everything is derived from
// fast-check's seeded values, so runs are deterministic.
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { cronCanMatch, nextCronAfter, parseCron } from '../../../src/domain/time/cron/index.ts';
import { DAY_MS, MAX_INSTANT_MS, MINUTE_MS } from '../../../src/domain/time/instant.ts';
import { canonicalTimeZone } from '../../../src/domain/time/timeZone.ts';
import { zoneRules } from '../../../src/domain/time/zoneRules.ts';
import { nextFiring } from '../../support/oracle/index.ts';
import { cronExpression, typicalCronExpression } from './arbitraries.ts';

/** The fixed seed of every cron property test. */
export const SEED = 20_271_107;

/** Every zone the runtime lists that the project accepts, plus UTC. */
export const ZONES: readonly string[] = [
  ...new Set(['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => canonicalTimeZone(zone) !== null)]),
];

/** Expressions: mostly shaped like real schedules, some straight from the grammar. */
export const expressionArb = fc.oneof({ weight: 3, arbitrary: typicalCronExpression }, { weight: 1, arbitrary: cronExpression });

export const zoneArb = fc.integer({ min: 0, max: ZONES.length - 1 }).map((i) => ZONES[i]!);

const dayOfYear = (year: number) => Date.UTC(year, 0, 1) / DAY_MS;

/** An instant (ms) between two years, built from a day number and a time of day. */
const instantBetween = (fromYear: number, toYear: number) =>
  fc
    .tuple(fc.integer({ min: dayOfYear(fromYear), max: dayOfYear(toYear) }), fc.integer({ min: 0, max: DAY_MS - 1 }))
    .map(([day, ms]) => day * DAY_MS + ms);

/** A shift away from a transition: any ms within a day, whole minutes, or a millisecond. */
const shiftArb = fc.oneof(
  fc.integer({ min: -DAY_MS, max: DAY_MS }),
  fc.integer({ min: -1440, max: 1440 }).map((m) => m * MINUTE_MS),
  fc.constantFrom(-MINUTE_MS, -1, 0, 1, MINUTE_MS),
);

/** The first offset transition of `zone` after `ms`, or null. */
export function nextTransition(zone: string, ms: number): number | null {
  const next = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).getTimeZoneTransition('next');
  return next === null ? null : next.epochMilliseconds;
}

/** Instants within a day of a DST transition of the zone (1970–2060), or anywhere when it has none. */
export const nearTransitionCase = fc
  .record({ expression: expressionArb, zone: zoneArb, base: instantBetween(1970, 2060), shift: shiftArb })
  .map(({ expression, zone, base, shift }) => {
    const transition = nextTransition(zone, base);
    const instant = transition === null || transition > Date.UTC(2100, 0, 1) ? base : transition + shift;
    return { expression, zone, instant };
  });

/** Instants across history (local mean time before ~1900), this era, and far years up to 9999. */
export const wideInstantArb = fc.oneof(
  { weight: 3, arbitrary: instantBetween(1900, 2100) },
  { weight: 2, arbitrary: instantBetween(1600, 1900) },
  { weight: 1, arbitrary: instantBetween(2395, 2405) },
  { weight: 1, arbitrary: instantBetween(4995, 5005) },
  { weight: 1, arbitrary: instantBetween(8995, 9005) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 800 * 24 * 60 }).map((m) => MAX_INSTANT_MS - m * MINUTE_MS) },
);

export const wideCase = fc.record({ expression: expressionArb, zone: zoneArb, instant: wideInstantArb });

/**
 * Whether some date can match, by brute force over every (month, day, weekday) triple with the
 * day rule applied to the parsed sets.
 */
export function feasibleByBruteForce(expression: string): boolean {
  const spec = parseCron(expression);
  const both = spec.domStar || spec.dowStar;
  const maxDays = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  for (const month of spec.month.values) {
    for (let day = 1; day <= maxDays[month - 1]!; day++) {
      for (let weekday = 0; weekday < 7; weekday++) {
        const dom = spec.dayOfMonth.values.includes(day);
        const dow = spec.dayOfWeek.values.includes(weekday);
        if (both ? dom && dow : dom || dow) return true;
      }
    }
  }
  return false;
}

export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** One generated differential case. */
export interface OracleCase {
  readonly expression: string;
  readonly zone: string;
  readonly instant: number;
}

/**
 * Asserts, for `numRuns` generated cases, that nextCronAfter equals the oracle; a rule that can
 * never match (checked by brute force) must give null and is not sent to the oracle's long walk.
 */
export function checkNextAgainstOracle(cases: fc.Arbitrary<OracleCase>, seed: number, numRuns: number) {
  let agreed = 0;
  let impossible = 0;
  fc.assert(
    fc.property(cases, ({ expression, zone, instant }) => {
      const spec = parseCron(expression);
      const ours = nextCronAfter(spec, zoneRules(zone), instant);
      expect(cronCanMatch(spec)).toBe(feasibleByBruteForce(expression));
      if (!cronCanMatch(spec)) {
        expect(ours).toBeNull();
        impossible++;
        return;
      }
      expect(isoOrNull(ours)).toBe(isoOrNull(nextFiring({ kind: 'cron', expression, timeZone: zone }, instant)));
      agreed++;
    }),
    { seed, numRuns },
  );
  return { agreed, impossible };
}
