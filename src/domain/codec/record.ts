// Strict decoding and deterministic encoding of one task record (docs/tasks.md): the common fields,
// then exactly the fields of its kind. Decoding checks every value in its stored (already
// normalised) form and never recomputes a target; a stored zone alias stays valid.

import { isStoredPrompt, isStoredTime, isStoredTitle, isStoredWeekdays, isValidId, MAX_TITLE_LENGTH } from '../args/fields.ts';
import type { ScheduleRecord, TaskKind } from '../tasks/types.ts';
import { isCanonicalCron } from '../time/cron/index.ts';
import { isStoredTimeZone } from '../time/timeZone.ts';
import { isCanonicalInstantText } from './instantText.ts';
import { corrupt, describe, isPlainObject, isSafeIntegerAtLeast, prefixed, readObject, type Where } from './strict.ts';

const COMMON = ['id', 'kind', 'title', 'prompt', 'scheduledAt'] as const;

/** The kind-specific fields of each record kind, in their stored order. */
export const KIND_FIELDS: Readonly<Record<TaskKind, readonly string[]>> = {
  after: ['afterSeconds'],
  at: [],
  every: ['everySeconds'],
  daily: ['time', 'timeZone'],
  weekly: ['time', 'timeZone', 'weekdays'],
  cron: ['expression', 'timeZone'],
};

/** The smallest stored fixed-rate interval (docs/selectors.md). */
export const MIN_EVERY_SECONDS = 60;

/**
 * A predicate on strings, its answers remembered per value (a domain repeats few distinct zones,
 * times and expressions); bounded, since the values come from documents.
 */
function remembered(test: (value: string) => boolean): (value: string) => boolean {
  const answers = new Map<string, boolean>();
  // The value accepted last: rows in a row tend to repeat it, and comparing is cheaper than hashing.
  let lastAccepted: string | undefined;
  return (value) => {
    if (value === lastAccepted) return true;
    let known = answers.get(value);
    if (known === undefined) {
      known = test(value);
      if (answers.size >= 4096) answers.clear();
      answers.set(value, known);
    }
    if (known) lastAccepted = value;
    return known;
  };
}

/** `isCanonicalCron`, remembered per expression. */
const isStoredCron = remembered(isCanonicalCron);

const isTaskKind = (value: unknown): value is TaskKind => typeof value === 'string' && Object.hasOwn(KIND_FIELDS, value);

/** Reads a stored canonical UTC instant or fails naming the field. */
export function readInstant(value: unknown, where: Where, field: string): string {
  if (typeof value !== 'string' || !isCanonicalInstantText(value)) {
    corrupt(where, field, `must be a canonical UTC instant "YYYY-MM-DDTHH:mm:ss.sssZ" in years 0001-9999, found ${describe(value)}`);
  }
  return value;
}

/** Reads member `key` of `raw` as {@link readInstant} does; the field (`parent.key`) is spelled only for a message. */
export function readInstantMember(raw: Readonly<Record<string, unknown>>, key: string, where: Where, parent: string): string {
  const value = raw[key];
  return typeof value === 'string' && isCanonicalInstantText(value) ? value : readInstant(value, where, prefixed(parent, key));
}

const isStoredZoneText = remembered(isStoredTimeZone);
const isStoredTimeText = remembered(isStoredTime);

function readZone(value: unknown, where: Where, parent: string, key: string): string {
  if (typeof value !== 'string' || !isStoredZoneText(value)) {
    corrupt(
      where,
      prefixed(parent, key),
      `must be "UTC" or a known IANA Area/Location zone in its stored spelling, found ${describe(value)}`,
    );
  }
  return value;
}

function readTime(value: unknown, where: Where, parent: string, key: string): string {
  if (typeof value !== 'string' || !isStoredTimeText(value)) {
    corrupt(
      where,
      prefixed(parent, key),
      `must be a normalised time of day "HH:mm:ss" or "HH:mm:ss.sss" (non-zero fraction), found ${describe(value)}`,
    );
  }
  return value;
}

const ALL_FIELDS: readonly string[] = [...COMMON, ...new Set(Object.values(KIND_FIELDS).flat())];

/** Every field a record of each kind holds: the common ones, then its kind's. */
const RECORD_FIELDS = Object.fromEntries(
  Object.entries(KIND_FIELDS).map(([kind, fields]) => [kind, [...COMMON, ...fields]]),
) as unknown as Readonly<Record<TaskKind, readonly string[]>>;

/** True when `value` holds exactly the fields in `fields` (all of them, no other). */
function hasExactly(value: Record<string, unknown>, fields: readonly string[]): boolean {
  const keys = Object.keys(value);
  if (keys.length !== fields.length) return false;
  for (const key of keys) if (!fields.includes(key)) return false;
  return true;
}

function checkKindFields(raw: Record<string, unknown>, kind: TaskKind, where: Where, field: string): void {
  switch (kind) {
    case 'after':
      if (!isSafeIntegerAtLeast(raw.afterSeconds, 1))
        corrupt(where, prefixed(field, 'afterSeconds'), `must be a positive safe integer, found ${describe(raw.afterSeconds)}`);
      return;
    case 'at':
      return;
    case 'every':
      if (!isSafeIntegerAtLeast(raw.everySeconds, MIN_EVERY_SECONDS)) {
        corrupt(
          where,
          prefixed(field, 'everySeconds'),
          `must be a safe integer of at least ${MIN_EVERY_SECONDS}, found ${describe(raw.everySeconds)}`,
        );
      }
      return;
    case 'daily':
      readTime(raw.time, where, field, 'time');
      readZone(raw.timeZone, where, field, 'timeZone');
      return;
    case 'weekly':
      readTime(raw.time, where, field, 'time');
      readZone(raw.timeZone, where, field, 'timeZone');
      if (!isStoredWeekdays(raw.weekdays))
        corrupt(where, prefixed(field, 'weekdays'), 'must be a non-empty, ascending list of distinct ISO weekdays 1-7');
      return;
    case 'cron':
      if (typeof raw.expression !== 'string' || !isStoredCron(raw.expression)) {
        corrupt(where, prefixed(field, 'expression'), `must be a canonical 5-field cron expression, found ${describe(raw.expression)}`);
      }
      readZone(raw.timeZone, where, field, 'timeZone');
      return;
  }
}

/**
 * Decodes one stored record; `field` is its path inside the row (normally `record`). Like every
 * decoder here it validates in place and returns the input object itself (JSON.parse output is
 * fresh, so this saves a copy per object when a large domain opens).
 */
export function decodeRecord(value: unknown, where: Where, field = 'record'): ScheduleRecord {
  const raw = readRecordFields(value, where, field);
  const kind = raw.kind as TaskKind;
  if (!isValidId(raw.id)) {
    corrupt(where, prefixed(field, 'id'), `must be a task id (1-128 characters from A-Z a-z 0-9 _ . : @ -), found ${describe(raw.id)}`);
  }
  if (!isStoredTitle(raw.title)) {
    corrupt(
      where,
      prefixed(field, 'title'),
      `must be a trimmed, non-blank string of at most ${MAX_TITLE_LENGTH} characters, found ${describe(raw.title)}`,
    );
  }
  if (!isStoredPrompt(raw.prompt))
    corrupt(where, prefixed(field, 'prompt'), `must be a trimmed, non-blank string, found ${describe(raw.prompt)}`);
  if (typeof raw.scheduledAt !== 'string' || !isCanonicalInstantText(raw.scheduledAt)) readInstantMember(raw, 'scheduledAt', where, field);
  checkKindFields(raw, kind, where, field);
  return raw as unknown as ScheduleRecord;
}

/**
 * Reads a record's fields: an object with a known kind and exactly that kind's fields. A record
 * that is not one is read again field by field, for the message naming its first problem.
 */
function readRecordFields(value: unknown, where: Where, field: string): Record<string, unknown> {
  if (isPlainObject(value)) {
    const kind = value.kind;
    if (isTaskKind(kind) && hasExactly(value, RECORD_FIELDS[kind])) return value;
  }
  const kind = readObject(value, where, field, ['kind'], ALL_FIELDS).kind;
  if (!isTaskKind(kind))
    corrupt(where, prefixed(field, 'kind'), `must be one of after, at, every, daily, weekly, cron, found ${describe(kind)}`);
  return readObject(value, where, field, RECORD_FIELDS[kind]);
}

/** The record as a plain object with its keys in the fixed stored order. */
export function encodeRecord(record: ScheduleRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: record.id,
    kind: record.kind,
    title: record.title,
    prompt: record.prompt,
    scheduledAt: record.scheduledAt,
  };
  switch (record.kind) {
    case 'after':
      out.afterSeconds = record.afterSeconds;
      break;
    case 'at':
      break;
    case 'every':
      out.everySeconds = record.everySeconds;
      break;
    case 'daily':
      out.time = record.time;
      out.timeZone = record.timeZone;
      break;
    case 'weekly':
      out.time = record.time;
      out.timeZone = record.timeZone;
      out.weekdays = [...record.weekdays];
      break;
    case 'cron':
      out.expression = record.expression;
      out.timeZone = record.timeZone;
      break;
  }
  return out;
}
