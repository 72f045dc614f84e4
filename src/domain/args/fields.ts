// Validation and normalisation of the record fields shared by creation, update and the stored
// domain's decoder: title, prompt, time of day, weekdays, and task ids. Each validator returns the
// normalised value or throws a ScheduleError with the code of the field it belongs to (docs/errors.md).

import { ScheduleError } from '../errors.ts';
import { describeValue } from './argShape.ts';

export const MAX_TITLE_LENGTH = 120;

/**
 * The longest prompt accepted as input, in characters (UTF-16 code units) after trimming. Stored
 * rows are not held to it: a longer prompt written by an older version still opens.
 */
export const MAX_PROMPT_LENGTH = 16_384;

/** Trims and checks a title: a string of 1–120 characters after trimming (`invalid_prompt`). */
export function normalizeTitle(value: unknown, field = 'title'): string {
  if (typeof value !== 'string') {
    throw new ScheduleError('invalid_prompt', `${field} is required and must be a string naming the reminder (1-120 characters).`);
  }
  const title = value.trim();
  if (title.length === 0)
    throw new ScheduleError('invalid_prompt', `${field} must not be blank: give the reminder a short name (1-120 characters).`);
  if (title.length > MAX_TITLE_LENGTH) {
    throw new ScheduleError(
      'invalid_prompt',
      `${field} is ${title.length} characters after trimming; at most ${MAX_TITLE_LENGTH} are accepted.`,
    );
  }
  return title;
}

/** Trims and checks a prompt: 1–{@link MAX_PROMPT_LENGTH} characters after trimming (`invalid_prompt`). */
export function normalizePrompt(value: unknown, field = 'prompt'): string {
  if (typeof value !== 'string') {
    throw new ScheduleError(
      'invalid_prompt',
      `${field} is required and must be a string: the instruction to deliver when the reminder is due.`,
    );
  }
  const prompt = value.trim();
  if (prompt.length === 0)
    throw new ScheduleError('invalid_prompt', `${field} must not be blank: say what should happen when the reminder is due.`);
  if (prompt.length > MAX_PROMPT_LENGTH) {
    throw new ScheduleError(
      'invalid_prompt',
      `${field} is ${prompt.length} characters after trimming; at most ${MAX_PROMPT_LENGTH} are accepted. Keep the instruction short and point to longer material instead of copying it in.`,
    );
  }
  return prompt;
}

/** A title exactly as stored: already trimmed, 1–120 characters. */
export const isStoredTitle = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_TITLE_LENGTH && value.trim() === value;

/** A prompt exactly as stored: already trimmed and non-empty (of any length: older versions had no maximum). */
export const isStoredPrompt = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.trim() === value;

/** A local time of day, normalised. */
export interface TimeOfDay {
  /** `HH:mm:ss`, or `HH:mm:ss.sss` when the fraction is non-zero. */
  readonly text: string;
  /** Milliseconds since local midnight. */
  readonly ms: number;
}

const TIME_OF_DAY = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

/** Parses `HH:mm:ss[.S{1,3}]` to its normalised form, or `null` when it is not one. */
export function parseTimeOfDay(text: string): TimeOfDay | null {
  const m = TIME_OF_DAY.exec(text);
  if (m === null) return null;
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  const second = Number(m[3]);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const millis = m[4] === undefined ? 0 : Number(m[4].padEnd(3, '0'));
  const base = `${m[1]}:${m[2]}:${m[3]}`;
  return {
    text: millis === 0 ? base : `${base}.${String(millis).padStart(3, '0')}`,
    ms: ((hour * 60 + minute) * 60 + second) * 1000 + millis,
  };
}

/** Validates a daily/weekly `time` argument (`invalid_rule`). */
export function normalizeTimeOfDay(value: unknown, field = 'time'): TimeOfDay {
  const parsed = typeof value === 'string' ? parseTimeOfDay(value) : null;
  if (parsed === null) {
    throw new ScheduleError(
      'invalid_rule',
      `${field} ${describeValue(value)} is not a time of day: use 24-hour "HH:mm:ss" with an optional 1-3 digit fraction, such as "09:00:00" or "17:30:15.5".`,
    );
  }
  return parsed;
}

/** A time exactly as stored: already normalised. */
export const isStoredTime = (value: unknown): value is string => typeof value === 'string' && parseTimeOfDay(value)?.text === value;

/** Validates a weekly `weekdays` argument: non-empty, integers 1–7, no duplicates (`invalid_rule`). Returns them ascending. */
export function normalizeWeekdays(value: unknown, field = 'weekdays'): number[] {
  const accepted = 'a non-empty list of ISO weekday numbers 1-7 (1 = Monday ... 7 = Sunday) without duplicates';
  if (!Array.isArray(value) || value.length === 0) throw new ScheduleError('invalid_rule', `${field} must be ${accepted}.`);
  const seen = new Set<number>();
  for (const day of value) {
    if (typeof day !== 'number' || !Number.isInteger(day) || day < 1 || day > 7) {
      throw new ScheduleError('invalid_rule', `${field} contains ${describeValue(day)}; it must be ${accepted}.`);
    }
    if (seen.has(day)) throw new ScheduleError('invalid_rule', `${field} lists ${day} twice; it must be ${accepted}.`);
    seen.add(day);
  }
  return [...seen].sort((a, b) => a - b);
}

/** Weekdays exactly as stored: non-empty, unique, ascending, 1–7. */
export function isStoredWeekdays(value: unknown): value is number[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  let last = 0;
  for (const day of value) {
    if (typeof day !== 'number' || !Number.isInteger(day) || day <= last || day > 7) return false;
    last = day;
  }
  return true;
}

/** The longest task or message id. */
export const MAX_ID_LENGTH = 128;

/** Task and message ids: 1–128 visible ASCII characters from a conservative set. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/;

export const isValidId = (value: unknown): value is string => typeof value === 'string' && ID_PATTERN.test(value);

/** The id a refused delete echoes back: the request's id when it is a string no longer than any id can be. */
export const echoedId = (id: unknown): { id?: string } => (typeof id === 'string' && id.length <= MAX_ID_LENGTH ? { id } : {});
