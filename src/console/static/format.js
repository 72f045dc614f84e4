// How the page writes instants, durations and timing rules. Instants are shown as wall-clock
// readings in an explicit zone (the task's, and the browser's), never in an implied one. A page
// of rows reads hundreds of instants per render, so the formatters are built once per zone, the
// browser's zone is read once, and recent readings are kept (an Intl.DateTimeFormat costs about
// a millisecond to build, a formatToParts call tens of microseconds).

const ownZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The browser's IANA time zone (read once: a page does not change zones while it runs). */
export const browserZone = () => ownZone;

const formatters = new Map();
function formatter(zone) {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'shortOffset',
    });
    formatters.set(zone, f);
  }
  return f;
}

// Readings by zone and instant; bounded, dropped whole when full (a page shows a few hundred).
const readings = new Map();
const MAX_READINGS = 5_000;

/** The wall-clock reading of `iso` in `zone`: `{weekday, year, month, day, hour, minute, second, timeZoneName}`. */
export function wallReading(iso, zone) {
  const key = `${zone} ${iso}`;
  let reading = readings.get(key);
  if (reading === undefined) {
    reading = {};
    for (const part of formatter(zone).formatToParts(new Date(iso))) reading[part.type] = part.value;
    if (readings.size >= MAX_READINGS) readings.clear();
    readings.set(key, reading);
  }
  return reading;
}

/** `Tue 2030-01-01 09:00` (seconds only when not zero) and the offset, in `zone`. */
export function formatInZone(iso, zone) {
  if (!iso) return '—';
  const parts = wallReading(iso, zone);
  const seconds = parts.second === '00' ? '' : `:${parts.second}`;
  return `${parts.weekday} ${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}${seconds} ${parts.timeZoneName}`;
}

/** `in 5 min`, `3 h ago`: how far `iso` is from `nowMs`. */
export function relative(iso, nowMs) {
  const diff = Date.parse(iso) - nowMs;
  const words = duration(Math.abs(diff) / 1000);
  if (Math.abs(diff) < 1000) return 'now';
  return diff > 0 ? `in ${words}` : `${words} ago`;
}

/** A number of seconds in the largest fitting unit: `90 s`, `15 min`, `2 h 30 min`, `3 d`. */
export function duration(seconds) {
  const s = Math.round(seconds);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) {
    const h = Math.floor(s / 3600);
    const m = Math.round((s % 3600) / 60);
    return m === 0 ? `${h} h` : `${h} h ${m} min`;
  }
  return `${Math.round(s / 86_400)} d`;
}

export const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

const shortTime = (time) => (time.endsWith(':00') && time.length === 8 ? time.slice(0, 5) : time);

/** The zone a record's times are read in (UTC for after, at and every). */
export const recordZone = (record) => record.timeZone ?? 'UTC';

/** The timing of a record in words; `short` leaves a one-shot's instant out (a list shows it beside). */
export function describeTiming(record, { short = false } = {}) {
  if (short && (record.kind === 'after' || record.kind === 'at')) return 'once';
  switch (record.kind) {
    case 'after':
      return `once, at ${formatInZone(record.scheduledAt, browserZone())} (${duration(record.afterSeconds)} after it was set)`;
    case 'at':
      return `once, at ${formatInZone(record.scheduledAt, browserZone())}`;
    case 'every':
      return `every ${duration(record.everySeconds)}`;
    case 'daily':
      return `at ${shortTime(record.time)} (${record.timeZone})`;
    case 'weekly':
      return `${record.weekdays.map((d) => WEEKDAY_NAMES[d - 1]).join(', ')} at ${shortTime(record.time)} (${record.timeZone})`;
    case 'cron':
      return `${record.expression} (${record.timeZone})`;
    default:
      return record.kind;
  }
}

/** How late a delivery was: `on time` under a second, else `+1.5 s`, `+3 min`, `+2 h 5 min`. */
export function lateness(occurrenceIso, deliveredIso) {
  const ms = Date.parse(deliveredIso) - Date.parse(occurrenceIso);
  if (!Number.isFinite(ms)) return '—';
  if (ms < 1000) return ms < 0 ? 'early' : 'on time';
  if (ms < 10_000) return `+${(ms / 1000).toFixed(1)} s`;
  return `+${duration(ms / 1000)}`;
}

// The day `nowMs` falls on, per zone, read again only when the minute changes.
const todays = new Map();
function todayReading(zone, nowMs) {
  const minute = Math.floor(nowMs / 60_000);
  let seen = todays.get(zone);
  if (seen?.minute !== minute) {
    seen = { minute, reading: wallReading(new Date(minute * 60_000).toISOString(), zone) };
    todays.set(zone, seen);
  }
  return seen.reading;
}

/** `09:01:15` in `zone` when `iso` falls on the same day there as `nowMs`, else the full `formatInZone` reading. */
export function timeOfDay(iso, zone, nowMs) {
  const at = wallReading(iso, zone);
  const today = todayReading(zone, nowMs);
  const sameDay = at.year === today.year && at.month === today.month && at.day === today.day;
  return sameDay ? `${at.hour}:${at.minute}:${at.second}` : formatInZone(iso, zone);
}
