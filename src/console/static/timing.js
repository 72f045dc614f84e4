// The timing part of the create and edit forms: its state (strings, as typed), the selector
// `schedule_create` takes, the `change` a remote update takes, and the state that shows an
// existing record. Values are passed on as typed where they are not numbers, so the Host's
// validation (and its messages) decide.
import { browserZone, wallReading } from './format.js';

/** The timing kinds, in the order the forms offer them. */
export const TIMING_KINDS = [
  { kind: 'after_seconds', label: 'After a delay' },
  { kind: 'at', label: 'At a date and time' },
  { kind: 'every_seconds', label: 'Every N seconds' },
  { kind: 'daily', label: 'Daily' },
  { kind: 'weekly', label: 'Weekly' },
  { kind: 'cron', label: 'Cron' },
];

/** Timing kinds that have a zone. */
export const ZONED = new Set(['at', 'daily', 'weekly', 'cron']);

/** A fresh form state: a weekday-morning cron rule in the browser's zone. */
export const initialTiming = () => ({
  kind: 'cron',
  afterSeconds: '10m',
  date: '',
  time: '09:00',
  everySeconds: '1h',
  weekdays: [1, 2, 3, 4, 5],
  expression: '0 9 * * 1-5',
  zone: browserZone(),
});

const UNIT_SECONDS = { s: 1, sec: 1, m: 60, min: 60, h: 3600, d: 86_400 };

/**
 * Seconds from an interval as typed: `90`, `90s`, `15m`, `15 min`, `2h`, `1d`; anything else is
 * passed on as typed, so the Host's validation decides and says why.
 */
export function parseInterval(text) {
  const match = /^\s*(-?\d+)\s*(s|sec|m|min|h|d)?\s*$/i.exec(text);
  if (!match) return text;
  return Number(match[1]) * UNIT_SECONDS[(match[2] ?? 's').toLowerCase()];
}

/** An interval in seconds as the forms show it: `1d`, `2h`, `15m`, or seconds. */
export function formatInterval(seconds) {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ]) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return String(seconds);
}

const toNumber = parseInterval;
const fullTime = (time) => {
  const t = time.trim();
  if (/^\d:\d{2}(:\d{2})?$/.test(t)) return fullTime(`0${t}`);
  return /^\d{2}:\d{2}$/.test(t) ? `${t}:00` : t;
};

/** The `schedule_create` selector of a state: `{cron: {...}}` and so on. */
export function selectorOf(state) {
  const time_zone = state.zone.trim();
  switch (state.kind) {
    case 'after_seconds':
      return { after_seconds: toNumber(state.afterSeconds) };
    case 'at':
      return { at: { date: state.date, time: fullTime(state.time), time_zone } };
    case 'every_seconds':
      return { every_seconds: toNumber(state.everySeconds) };
    case 'daily':
      return { daily: { time: fullTime(state.time), time_zone } };
    case 'weekly':
      return { weekly: { time: fullTime(state.time), time_zone, weekdays: [...state.weekdays].sort((a, b) => a - b) } };
    default:
      return { cron: { expression: state.expression.trim(), time_zone } };
  }
}

/** The `change` of a remote update for a state (never `after`). */
export function changeOf(state) {
  const [name, value] = Object.entries(selectorOf(state))[0];
  if (name === 'at') return { kind: 'at', at: value };
  if (name === 'every_seconds') return { kind: 'every', every_seconds: value };
  return { kind: name, ...value };
}

function wallParts(iso, zone) {
  const p = wallReading(iso, zone);
  return { date: `${p.year}-${p.month}-${p.day}`, time: p.second === '00' ? `${p.hour}:${p.minute}` : `${p.hour}:${p.minute}:${p.second}` };
}

/** The form state that shows `record`'s timing; one-shots show their instant as an `at`. */
export function timingOfRecord(record) {
  const base = initialTiming();
  switch (record.kind) {
    case 'after':
    case 'at':
      return { ...base, kind: 'at', ...wallParts(record.scheduledAt, base.zone) };
    case 'every':
      return { ...base, kind: 'every_seconds', everySeconds: formatInterval(record.everySeconds) };
    case 'daily':
      return { ...base, kind: 'daily', time: record.time, zone: record.timeZone };
    case 'weekly':
      return { ...base, kind: 'weekly', time: record.time, zone: record.timeZone, weekdays: [...record.weekdays] };
    default:
      return { ...base, kind: 'cron', expression: record.expression, zone: record.timeZone };
  }
}

/** True when two states describe the same timing as typed. */
export const sameTiming = (a, b) => JSON.stringify(selectorOf(a)) === JSON.stringify(selectorOf(b));
