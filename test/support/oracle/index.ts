// The project's own brute-force reference for wall-clock rules, used by the property and
// reliability tests to check the engine in src/domain: the next firing of a daily, weekly or cron
// rule after an instant, and the latest firing inside a window. It is deliberately slow and
// simple — walk local dates, resolve each candidate wall time through the zone's offsets from
// temporal-polyfill — and shares no code with the engine it checks.
import { nextFiring, type ReferenceRule } from './nextFiring.ts';

export { type CronSets, cronDateMatches, cronSets } from './cronSets.ts';
export { LAST_FIRING_MS, nextFiring, nextFiringIso, type ReferenceRule } from './nextFiring.ts';
export { zoneOffsets } from './zoneOffsets.ts';

/**
 * The latest firing of `rule` in [notBefore, now], or null when none: the firings are walked
 * forward from `notBefore` one by one, so keep the window to a few days for rules that fire often.
 */
export function latestFiringIn(rule: ReferenceRule, notBefore: number, now: number): number | null {
  let latest: number | null = null;
  for (let t = nextFiring(rule, notBefore - 1); t !== null && t <= now; t = nextFiring(rule, t)) latest = t;
  return latest;
}
