// Time-zone validation (docs/selectors.md): `UTC` or an IANA `Area/Location` name known to the runtime.
// The stored id is the given name with its letter case normalised as temporal-polyfill reports
// it, and never another id: aliases such as `Asia/Calcutta` are kept as given. Offsets, `GMT`,
// `EST5EDT` and other names without `/` are refused even where Intl would accept them.
//
// The names the runtime lists (`Intl.supportedValuesOf('timeZone')`: every canonical id) are
// answered from that list, which spells each as temporal-polyfill reports it
// (test/domain/timeZone.test.ts checks every one, in every letter case). temporal-polyfill is
// loaded only for a name outside the list (an alias such as `Asia/Kolkata` or `US/Eastern`): it
// is the largest module the core would otherwise load at start (BENCHMARKS.md, restore), and a
// Host serving one-shot or UTC reminders never needs it. It is loaded with `require`, since the
// answer is synchronous (Node 20.19 and later load an ES module so).
import { createRequire } from 'node:module';
import type { Temporal as TemporalApi } from 'temporal-polyfill';
import { describeValue } from '../args/argShape.ts';
import { ScheduleError } from '../errors.ts';

const ACCEPTED = 'Use "UTC" or an IANA Area/Location name such as "Europe/Berlin" or "Asia/Shanghai"';

/** Answers for names that needed the zone data, remembered; bounded, since names come from callers. */
const known = new Map<string, string | null>();
const MAX_KNOWN = 4096;

/** A name shaped like `UTC` or an `Area/Location` id; anything else is refused without consulting zone data. */
const plausibleName = (name: string): boolean =>
  name.length <= 64 && (name.includes('/') || name.toUpperCase() === 'UTC') && /^[A-Za-z0-9_+\-/]+$/.test(name);

/** The runtime's listed zone ids by their lower-case form, read on first use. */
let listed: Map<string, string> | undefined;
const listedId = (name: string): string | undefined => {
  listed ??= new Map(Intl.supportedValuesOf('timeZone').map((id) => [id.toLowerCase(), id]));
  return listed.get(name.toLowerCase());
};

const require = createRequire(import.meta.url);
let temporal: typeof TemporalApi | undefined;
/** temporal-polyfill, loaded on first use; a failure to load it (a broken install) is thrown as it is, never read as a bad name. */
const loadTemporal = (): typeof TemporalApi => {
  temporal ??= (require('temporal-polyfill') as { Temporal: typeof TemporalApi }).Temporal;
  return temporal;
};

/**
 * The stored form of a zone id, or `null` when the name is not accepted. `UTC` and the names the
 * runtime lists take their listed spelling; any other name is accepted when temporal-polyfill
 * builds a zoned date in it and reports an id that round-trips (case-insensitively) to the given
 * name, so the runtime's own zone data decides and no alias is substituted.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!plausibleName(name)) return null;
  const cached = known.get(name);
  if (cached !== undefined) return cached;
  let result: string | null = name.toUpperCase() === 'UTC' ? 'UTC' : (listedId(name) ?? null);
  if (result === null) {
    const zoned = loadTemporal().Instant.fromEpochMilliseconds(0);
    try {
      const id = zoned.toZonedDateTimeISO(name).timeZoneId;
      if (id.toLowerCase() === name.toLowerCase()) result = id;
    } catch {
      // A name the zone data does not know: not accepted.
    }
  }
  if (known.size >= MAX_KNOWN) known.clear();
  known.set(name, result);
  return result;
}

/** How many zone names are remembered (for tests: the cache stays bounded). */
export const cachedTimeZoneCount = (): number => known.size;

/** Validates a `time_zone` argument; throws `invalid_time_zone` with a message naming the field. */
export function normalizeTimeZone(value: unknown, field = 'time_zone'): string {
  if (typeof value !== 'string') {
    throw new ScheduleError('invalid_time_zone', `${field} must be a string time-zone name. ${ACCEPTED}.`);
  }
  const id = canonicalTimeZone(value);
  if (id === null) {
    throw new ScheduleError(
      'invalid_time_zone',
      `${field} ${describeValue(value)} is not an accepted time zone. ${ACCEPTED}; offsets such as "+08:00" and abbreviations such as "EST" or "GMT" are not accepted.`,
    );
  }
  return id;
}

/** True when a stored zone id is exactly in its stored (case-normalised) form. */
export const isStoredTimeZone = (value: string): boolean => canonicalTimeZone(value) === value;
