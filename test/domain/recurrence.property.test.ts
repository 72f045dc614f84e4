// Property tests of daily and weekly recurrence against the project's brute-force oracle
// (test/support/oracle), over every zone the runtime knows, with instants and times of day
// concentrated around offset transitions (so that times fall into gaps and overlaps), and of
// latestOccurrence for daily, weekly and every against a brute-force walk. Seeds are fixed: runs
// are reproducible. The sweep over every zone always runs; the generated cases number fewer under
// `npm test` than under `npm run stress` (test/support/runs.ts).
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import type { Rule } from '../../src/domain/tasks/types.ts';
import { firstTarget, latestOccurrence, nextTargetAfter } from '../../src/domain/time/recurrence.ts';
import { canonicalTimeZone } from '../../src/domain/time/timeZone.ts';
import { latestFiringIn, nextFiring } from '../support/oracle/index.ts';
import { runs } from '../support/runs.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const FIRST = Date.parse('0001-01-01T00:00:00.000Z');
const LAST = Date.parse('9999-12-31T23:59:59.999Z');
const LOW = Date.parse('1850-01-01T00:00:00Z');
const HIGH = Date.parse('2150-01-01T00:00:00Z');

/** Every zone the runtime knows that the project accepts, plus UTC. */
const ZONES = [...new Set([...Intl.supportedValuesOf('timeZone').flatMap((z) => canonicalTimeZone(z) ?? []), 'UTC'])].sort();

type LocalRule = Extract<Rule, { kind: 'daily' | 'weekly' }>;

interface Case {
  readonly rule: LocalRule;
  readonly now: number;
  /** A committed target at or before now, for nextTargetAfter. */
  readonly committed: number;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const mod = (a: number, b: number) => ((a % b) + b) % b;

/** A normalised time of day (`HH:mm:ss[.sss]`) from milliseconds after midnight. */
function timeText(ms: number): string {
  const base = `${pad(Math.floor(ms / HOUR))}:${pad(Math.floor(ms / MINUTE) % 60)}:${pad(Math.floor(ms / 1000) % 60)}`;
  return ms % 1000 === 0 ? base : `${base}.${pad(ms % 1000, 3)}`;
}

interface ZoneTransition {
  readonly at: number;
  readonly offsetBefore: number;
  readonly offsetAfter: number;
}

/** The next offset transition after `ms` in `zone` with the offsets around it, or null. */
function transitionAfter(zone: string, ms: number): ZoneTransition | null {
  const next = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone).getTimeZoneTransition('next');
  if (next === null || next.epochMilliseconds > LAST) return null;
  const before = Temporal.Instant.fromEpochMilliseconds(next.epochMilliseconds - 1).toZonedDateTimeISO(zone);
  return { at: next.epochMilliseconds, offsetBefore: before.offsetNanoseconds / 1e6, offsetAfter: next.offsetNanoseconds / 1e6 };
}

/**
 * Where transitions are looked for: the first one after each anchor, so that spring and autumn
 * changes, historical rule changes and the far future are all represented. Looked up once per
 * (zone, anchor) and reused, so that cases near one transition share its lookups.
 */
const ANCHORS = [
  '1901-06-01',
  '1942-01-01',
  '1970-01-01',
  '1985-06-01',
  '1996-01-01',
  '2011-06-01',
  '2027-01-01',
  '2027-07-01',
  '2045-01-01',
  '2090-06-01',
].map((date) => Date.parse(`${date}T00:00:00Z`));
const transitionMemo = new Map<string, ZoneTransition | null>();
function anchoredTransition(zone: string, anchor: number): ZoneTransition | null {
  const key = `${zone} ${anchor}`;
  if (!transitionMemo.has(key)) transitionMemo.set(key, transitionAfter(zone, ANCHORS[anchor] ?? 0));
  return transitionMemo.get(key) ?? null;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    zone: fc.constantFrom(...ZONES),
    anchor: fc.nat({ max: ANCHORS.length - 1 }),
    instantMode: fc.constantFrom('transition', 'transition', 'transition', 'uniform', 'rangeEnd'),
    base: fc.integer({ min: LOW, max: HIGH }),
    delta: fc.integer({ min: -DAY, max: DAY }),
    timeMode: fc.constantFrom('transition', 'transition', 'random'),
    randomTime: fc.integer({ min: 0, max: DAY - 1 }),
    timeDelta: fc.integer({ min: -2 * HOUR, max: 2 * HOUR }),
    precision: fc.constantFrom(MINUTE, MINUTE, 1000, 1),
    kind: fc.constantFrom('daily', 'weekly'),
    weekdays: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
    committedBack: fc.integer({ min: 0, max: 3 * DAY }),
  })
  .map((g): Case => {
    const transition = anchoredTransition(g.zone, g.anchor);
    let now: number;
    if (g.instantMode === 'rangeEnd') now = g.base % 2 === 0 ? LAST - mod(g.base, 12 * DAY) : FIRST + mod(g.base, 12 * DAY);
    else if (g.instantMode === 'transition' && transition !== null) now = transition.at + g.delta;
    else now = g.base;
    now = Math.min(LAST, Math.max(FIRST, now));
    const wallAtTransition = transition === null ? null : transition.at + transition.offsetBefore;
    const rawTime = g.timeMode === 'transition' && wallAtTransition !== null ? mod(wallAtTransition + g.timeDelta, DAY) : g.randomTime;
    const time = timeText(rawTime - (rawTime % g.precision));
    const rule: LocalRule =
      g.kind === 'daily'
        ? { kind: 'daily', time, timeZone: g.zone }
        : { kind: 'weekly', time, timeZone: g.zone, weekdays: [...g.weekdays].sort((a, b) => a - b) };
    return { rule, now, committed: Math.max(FIRST, now - g.committedBack) };
  });

const oracleNext = (rule: LocalRule, now: number): number | null => nextFiring(rule, now);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function checkAgainstOracle(c: Case): void {
  const expected = iso(oracleNext(c.rule, c.now));
  expect(iso(firstTarget(c.rule, c.now)), `firstTarget ${JSON.stringify(c.rule)} after ${iso(c.now)}`).toBe(expected);
  expect(iso(nextTargetAfter(c.rule, c.committed, c.now)), `nextTargetAfter ${JSON.stringify(c.rule)} after ${iso(c.now)}`).toBe(expected);
}

/**
 * One case per zone at its first transition after 2027-01-01 (or in 1970 for zones without later
 * ones), with the time of day a quarter hour inside the skipped or repeated wall times.
 */
function sweepCases(): Case[] {
  return ZONES.map((zone) => {
    const t = anchoredTransition(zone, ANCHORS.indexOf(Date.parse('2027-01-01T00:00:00Z'))) ?? anchoredTransition(zone, 2);
    if (t === null) return { rule: { kind: 'daily', time: '02:30:00', timeZone: zone }, now: 0, committed: 0 };
    const wall = t.at + t.offsetBefore + (t.offsetAfter > t.offsetBefore ? 15 : -15) * MINUTE;
    const time = timeText(mod(wall - mod(wall, MINUTE), DAY));
    return { rule: { kind: 'daily', time, timeZone: zone }, now: t.at - 12 * HOUR, committed: t.at - 12 * HOUR };
  });
}

const ORACLE_CASES = runs({ short: 800, long: 10_000 });

describe('daily and weekly agree with the brute-force oracle', () => {
  it(`firstTarget and nextTargetAfter on every zone the runtime knows, near transitions, ≥ ${ORACLE_CASES} cases`, () => {
    let cases = 0;
    for (const c of sweepCases()) {
      checkAgainstOracle(c);
      cases++;
    }
    fc.assert(
      fc.property(caseArb, (c) => {
        checkAgainstOracle(c);
        cases++;
      }),
      { seed: 20_300_101, numRuns: ORACLE_CASES },
    );
    console.log(`daily/weekly vs oracle: ${cases} cases over ${ZONES.length} zones`);
    expect(cases).toBeGreaterThanOrEqual(ORACLE_CASES);
  }, 180_000);
});

/** The latest firing in [committed, now] by walking firings forward with the oracle, else committed. */
const bruteLatest = (rule: LocalRule, committed: number, now: number): number => latestFiringIn(rule, committed, now) ?? committed;

describe('latestOccurrence agrees with a brute-force walk', () => {
  it('daily and weekly: the latest firing in [committed, now], else the committed target', () => {
    let cases = 0;
    const arb = fc.record({ c: caseArb, window: fc.integer({ min: 0, max: 6 * DAY }), onFiring: fc.boolean() });
    fc.assert(
      fc.property(arb, ({ c, window, onFiring }) => {
        // a committed target is normally a firing of the rule; sometimes take an arbitrary instant
        const firing = onFiring ? firstTarget(c.rule, c.now - 1) : null;
        const committed = firing ?? c.now;
        const now = Math.min(LAST, committed + window);
        expect(iso(latestOccurrence(c.rule, committed, now)), `${JSON.stringify(c.rule)} [${iso(committed)}, ${iso(now)}]`).toBe(
          iso(bruteLatest(c.rule, committed, now)),
        );
        cases++;
      }),
      { seed: 4_242, numRuns: runs({ short: 500, long: 1_500 }) },
    );
    console.log(`latestOccurrence daily/weekly vs brute force: ${cases} cases`);
  });

  it('every: the last grid point at or before now, and the next one strictly after it', () => {
    const arb = fc.record({
      committed: fc.integer({ min: LOW, max: HIGH }),
      everySeconds: fc.integer({ min: 60, max: 3 * 86_400 }),
      elapsed: fc.integer({ min: 0, max: 40 * 3 * DAY }),
    });
    fc.assert(
      fc.property(arb, ({ committed, everySeconds, elapsed }) => {
        const rule: Rule = { kind: 'every', everySeconds };
        const now = committed + (elapsed % (40 * everySeconds * 1000));
        let latest = committed;
        while (latest + everySeconds * 1000 <= now) latest += everySeconds * 1000;
        expect(latestOccurrence(rule, committed, now)).toBe(latest);
        expect(nextTargetAfter(rule, committed, now)).toBe(latest + everySeconds * 1000);
      }),
      { seed: 7, numRuns: runs({ short: 500, long: 2_000 }) },
    );
  });
});
