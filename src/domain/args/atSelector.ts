// The `at` selector (docs/selectors.md): an RFC 3339 date-time string that carries its offset, or a
// local object `{date, time, time_zone}` resolved in an explicit zone. A malformed value, or a
// local time that does not exist in its zone (DST gap, skipped date), is `invalid_selector`; a
// bad zone is `invalid_time_zone`; a local time that exists twice resolves to its earlier
// instant. Whether the instant is in the future is the caller's check.
//
// The string form follows RFC 3339 §5.6: `YYYY-MM-DDTHH:mm:ss[.S{1,3}](Z|±HH:MM)`, seconds
// required, at most three fraction digits; `T` and `Z` may be lower case as RFC 3339 allows;
// `-00:00` reads as UTC. A space instead of `T` and leap seconds (`:60`) are refused.

import { ScheduleError } from '../errors.ts';
import { wallDateMs } from '../time/calendar.ts';
import { normalizeTimeZone } from '../time/timeZone.ts';
import { describeTransition, gapHolding } from '../time/transitions.ts';
import { zoneRules } from '../time/zoneRules.ts';
import { type ArgObject, describeValue, isPlainObject, ownValue, unknownKeys } from './argShape.ts';

const EXAMPLES =
  'an RFC 3339 date-time with an offset, such as "2030-01-01T09:00:00+08:00" or "2030-01-01T01:00:00Z" ' +
  '(seconds required, 1-3 fraction digits allowed), or a local object ' +
  '{"date":"2030-01-01","time":"09:00","time_zone":"Asia/Shanghai"}';

const LOCAL_KEYS = ['date', 'time', 'time_zone'] as const;

/** Loose shape of a date-time string, so that a near miss can be named precisely. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:\d{2})?$/;
const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

const invalid = (message: string): ScheduleError => new ScheduleError('invalid_selector', message);

/**
 * Validates an `at` value and returns its instant (epoch ms). `field` names the argument in
 * messages (`at`, `change.at`).
 */
export function parseAt(value: unknown, field = 'at'): number {
  if (typeof value === 'string') return parseAtString(value, field);
  if (isPlainObject(value)) return parseLocalAt(value, field);
  throw invalid(`${field} must be ${EXAMPLES}; got ${describeValue(value)}.`);
}

function parseAtString(text: string, field: string): number {
  const m = DATE_TIME.exec(text);
  const shown = describeValue(text);
  if (m === null) throw invalid(`${field} ${shown} is not a date-time. Give ${EXAMPLES}.`);
  const [, year, month, day, hour, minute, second, fraction, offset] = m;
  if (second === undefined) throw invalid(`${field} ${shown} has no seconds; write them out, such as "…T09:00:00+08:00".`);
  if (fraction !== undefined && fraction.length > 3) {
    throw invalid(`${field} ${shown} has ${fraction.length} fraction digits; at most 3 (milliseconds) are accepted.`);
  }
  if (offset === undefined) {
    throw invalid(
      `${field} ${shown} has no offset, so the instant is ambiguous. Append "Z" or an offset such as "+08:00", ` +
        'or give a local object {"date","time","time_zone"} with an explicit zone.',
    );
  }
  const midnight = wallDateMs(Number(year), Number(month), Number(day));
  if (midnight === null) throw invalid(`${field} ${shown} names a calendar date that does not exist.`);
  const timeMs = timeOfDayMs(Number(hour), Number(minute), Number(second), fraction);
  if (timeMs === null) throw invalid(`${field} ${shown} has an impossible time of day; use 00:00:00 to 23:59:59.999.`);
  const offsetMs = offsetOf(offset);
  if (offsetMs === null) throw invalid(`${field} ${shown} has an impossible offset; use "Z" or ±HH:MM up to ±23:59.`);
  return midnight + timeMs - offsetMs;
}

function parseLocalAt(obj: ArgObject, field: string): number {
  const extra = unknownKeys(obj, LOCAL_KEYS);
  if (extra.length > 0) {
    throw invalid(`${field} has unknown member ${describeValue(extra[0])}; a local ${field} has exactly date, time and time_zone.`);
  }
  const date = ownValue(obj, 'date');
  const dm = typeof date === 'string' ? LOCAL_DATE.exec(date) : null;
  const midnight = dm === null ? null : wallDateMs(Number(dm[1]), Number(dm[2]), Number(dm[3]));
  if (midnight === null) {
    throw invalid(`${field}.date ${describeValue(date)} is not a calendar date; use "YYYY-MM-DD", such as "2030-01-31".`);
  }
  const time = ownValue(obj, 'time');
  const tm = typeof time === 'string' ? LOCAL_TIME.exec(time) : null;
  const timeMs = tm === null ? null : timeOfDayMs(Number(tm[1]), Number(tm[2]), Number(tm[3] ?? 0), tm[4]);
  if (timeMs === null) {
    throw invalid(`${field}.time ${describeValue(time)} is not a time of day; use 24-hour "HH:mm", "HH:mm:ss" or "HH:mm:ss.SSS".`);
  }
  const zoneId = normalizeTimeZone(ownValue(obj, 'time_zone'), `${field}.time_zone`);
  const zone = zoneRules(zoneId);
  const wall = midnight + timeMs;
  const resolved = zone.resolveWall(wall);
  if (resolved.kind === 'exact') return resolved.instant;
  if (resolved.kind === 'overlap') return resolved.earlier;
  throw invalid(gapMessage(field, `${date as string} ${time as string}`, zoneId, wall));
}

function gapMessage(field: string, shown: string, zoneId: string, wall: number): string {
  const gap = gapHolding(zoneRules(zoneId), wall);
  const base = `${field} ${shown} does not exist in ${zoneId}`;
  if (gap === null) return `${base}; choose a local time that exists there.`;
  return `${base}: ${describeTransition(gap)} there. Choose a local time outside that gap, or give an instant with an explicit offset.`;
}

function timeOfDayMs(hour: number, minute: number, second: number, fraction: string | undefined): number | null {
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = fraction === undefined ? 0 : Number(fraction.padEnd(3, '0'));
  return ((hour * 60 + minute) * 60 + second) * 1000 + millis;
}

function offsetOf(offset: string): number | null {
  if (offset === 'Z' || offset === 'z') return 0;
  const hours = Number(offset.slice(1, 3));
  const minutes = Number(offset.slice(4, 6));
  if (hours > 23 || minutes > 59) return null;
  const ms = (hours * 60 + minutes) * 60_000;
  return offset.startsWith('-') ? -ms : ms;
}
