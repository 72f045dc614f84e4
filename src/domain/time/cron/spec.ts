// The parsed form of a cron expression: for each of the five fields the set of values it
// matches, whether its text starts with `*` (which decides the day rule), and successor /
// predecessor tables that let the search jump to the next or previous matching value in one
// lookup. Also the static description of the five fields (names, ranges).

/** The five fields in expression order. */
export type CronFieldName = 'minute' | 'hour' | 'day-of-month' | 'month' | 'day-of-week';

/** Static description of one field. */
export interface CronFieldRange {
  readonly name: CronFieldName;
  /** Smallest accepted value. */
  readonly min: number;
  /** Largest accepted value in the text (day-of-week accepts 7 for Sunday). */
  readonly max: number;
  /** Largest value after folding (day-of-week: 6); the range star-steps walk over. */
  readonly foldedMax: number;
}

/** The fields in expression order: minute, hour, day-of-month, month, day-of-week. */
export const CRON_FIELD_RANGES: readonly [CronFieldRange, CronFieldRange, CronFieldRange, CronFieldRange, CronFieldRange] = [
  { name: 'minute', min: 0, max: 59, foldedMax: 59 },
  { name: 'hour', min: 0, max: 23, foldedMax: 23 },
  { name: 'day-of-month', min: 1, max: 31, foldedMax: 31 },
  { name: 'month', min: 1, max: 12, foldedMax: 12 },
  { name: 'day-of-week', min: 0, max: 7, foldedMax: 6 },
];

/** The values one field matches, with lookup tables for the search. */
export interface CronFieldSet {
  /** Matched values, ascending and distinct; day-of-week is 0–6 with Sunday 0. */
  readonly values: readonly number[];
  /** The field's text starts with `*`. */
  readonly star: boolean;
  /** `next[v]`: the smallest matched value ≥ v, or -1; defined for v from 0 to foldedMax + 1. */
  readonly next: readonly number[];
  /** `prev[v]`: the largest matched value ≤ v, or -1; defined for v from 0 to foldedMax + 1. */
  readonly prev: readonly number[];
}

/** A parsed, valid 5-field cron expression (docs/selectors.md). */
export interface CronSpec {
  /** The expression text as given. */
  readonly source: string;
  readonly minute: CronFieldSet;
  readonly hour: CronFieldSet;
  readonly dayOfMonth: CronFieldSet;
  readonly month: CronFieldSet;
  readonly dayOfWeek: CronFieldSet;
  /** The day-of-month text starts with `*`. */
  readonly domStar: boolean;
  /** The day-of-week text starts with `*`. */
  readonly dowStar: boolean;
}

/**
 * Builds the set of one field from a membership array (`members[v]` is non-zero when v matches),
 * already folded: only indices `range.min` to `range.foldedMax` are read.
 */
export function fieldSet(members: Uint8Array, star: boolean, range: CronFieldRange): CronFieldSet {
  const size = range.foldedMax + 2;
  const values: number[] = [];
  const prev: number[] = [];
  let last = -1;
  for (let v = 0; v < size; v++) {
    if (v >= range.min && v <= range.foldedMax && members[v] !== 0) {
      values.push(v);
      last = v;
    }
    prev.push(last);
  }
  const next = prev.slice();
  last = -1;
  for (let v = size - 1; v >= 0; v--) {
    if (prev[v] === v) last = v;
    next[v] = last;
  }
  return { values, star, next, prev };
}

/** True when a field matches `value`. */
export const fieldHas = (field: CronFieldSet, value: number): boolean => field.next[value] === value;
