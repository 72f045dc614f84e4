// Temporal's own answers about a zone, for the differential tests of zoneRules.ts: the offset at an
// instant, the transitions in a range (walked with getTimeZoneTransition), and how a wall time
// resolves (a PlainDateTime placed in the zone with 'earlier' and 'later' disambiguation). Nothing
// here uses the project's engine.
import { Temporal } from 'temporal-polyfill';
import { canonicalTimeZone } from '../../src/domain/time/timeZone.ts';
import type { Transition } from '../../src/domain/time/transitions.ts';
import type { WallResolution } from '../../src/domain/time/zoneRules.ts';

/** Every zone the runtime knows that the project accepts, plus UTC. */
export const ZONES: readonly string[] = [
  ...new Set([...Intl.supportedValuesOf('timeZone').flatMap((z) => canonicalTimeZone(z) ?? []), 'UTC']),
].sort();

const zoned = (zone: string, ms: number) => Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);

/** Temporal's offset (ms) of `zone` at instant `ms`. */
export const temporalOffset = (zone: string, ms: number): number => zoned(zone, ms).offsetNanoseconds / 1e6;

/** Temporal's transitions of `zone` with `fromMs < at <= toMs`, in order. */
export function temporalTransitions(zone: string, fromMs: number, toMs: number): Transition[] {
  const out: Transition[] = [];
  let zdt = zoned(zone, fromMs);
  for (;;) {
    const next = zdt.getTimeZoneTransition('next');
    if (next === null || next.epochMilliseconds > toMs) return out;
    out.push({ at: next.epochMilliseconds, before: zdt.offsetNanoseconds / 1e6, after: next.offsetNanoseconds / 1e6 });
    zdt = next;
  }
}

/** How Temporal places the wall reading `wallMs` (wall ms, see zoneRules.ts) in `zone`. */
export function temporalResolution(zone: string, wallMs: number): WallResolution {
  const local = zoned('UTC', wallMs).toPlainDateTime();
  const earlier = local.toZonedDateTime(zone, { disambiguation: 'earlier' });
  const later = local.toZonedDateTime(zone, { disambiguation: 'later' });
  const wallOf = (z: Temporal.ZonedDateTime) => z.epochMilliseconds + z.offsetNanoseconds / 1e6;
  if (wallOf(earlier) !== wallMs) return { kind: 'gap' };
  if (earlier.epochMilliseconds === later.epochMilliseconds) return { kind: 'exact', instant: earlier.epochMilliseconds };
  return { kind: 'overlap', earlier: earlier.epochMilliseconds, later: later.epochMilliseconds };
}
