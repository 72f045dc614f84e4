// The reference oracle's reading of a cron expression: each of the five fields (minute, hour,
// day of month, month, day of week) as the plain set of values it matches, and whether it is a
// star field (its text starts with `*`). Only valid expressions of the project's dialect are
// ever given to the oracle, so anything else simply throws.

/** The matched values of each field and the star-ness of the two day fields. */
export interface CronSets {
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 = Sunday … 6 = Saturday (7 in the text is read as 0). */
  readonly weekdays: ReadonlySet<number>;
  readonly dayOfMonthIsStar: boolean;
  readonly weekdayIsStar: boolean;
}

/** Each field's lowest and highest value as written (day of week allows 7). */
const LIMITS: ReadonlyArray<readonly [number, number]> = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

/** A non-negative decimal number, or an error. */
function digits(text: string | undefined, item: string): number {
  if (text === undefined || !/^[0-9]+$/.test(text)) throw new Error(`'${item}' is not a cron item`);
  return Number(text);
}

/** Every value one comma-separated item of a field matches: `*`, `N`, `A-B`, or `*` or `A-B` with a `/S` step. */
function itemValues(item: string, [low, high]: readonly [number, number]): number[] {
  const slash = item.split('/');
  if (slash.length > 2) throw new Error(`'${item}' is not a cron item`);
  const [base = '', stepText] = slash;
  const step = stepText === undefined ? 1 : digits(stepText, item);
  let from: number;
  let to: number;
  if (base === '*') {
    [from, to] = [low, high];
  } else if (base.includes('-')) {
    const [a, b, ...rest] = base.split('-');
    if (rest.length > 0) throw new Error(`'${item}' is not a cron item`);
    [from, to] = [digits(a, item), digits(b, item)];
  } else {
    if (stepText !== undefined) throw new Error(`'${item}': a step needs * or a range`);
    from = to = digits(base, item);
  }
  if (step < 1 || from < low || to > high || from > to) throw new Error(`'${item}' is out of ${low}-${high}`);
  const values: number[] = [];
  for (let v = from; v <= to; v += step) values.push(v);
  return values;
}

/** Reads an expression whose fields are separated by spaces or tabs. */
export function cronSets(expression: string): CronSets {
  const fields = expression.trim().split(/[ \t]+/);
  if (fields.length !== 5) throw new Error(`'${expression}' does not have five fields`);
  const sets = fields.map((field, i) => new Set(field.split(',').flatMap((item) => itemValues(item, LIMITS[i]!))));
  const [minutes, hours, daysOfMonth, months, weekdaysAsWritten] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  const weekdays = new Set([...weekdaysAsWritten].map((d) => d % 7));
  return {
    minutes,
    hours,
    daysOfMonth,
    months,
    weekdays,
    dayOfMonthIsStar: fields[2]!.startsWith('*'),
    weekdayIsStar: fields[4]!.startsWith('*'),
  };
}

/**
 * Whether a local date matches the day fields: the month must match; then, when either day field
 * is a star field, both must match, otherwise either is enough.
 */
export function cronDateMatches(sets: CronSets, month: number, dayOfMonth: number, weekday: number): boolean {
  if (!sets.months.has(month)) return false;
  const byDay = sets.daysOfMonth.has(dayOfMonth);
  const byWeekday = sets.weekdays.has(weekday);
  return sets.dayOfMonthIsStar || sets.weekdayIsStar ? byDay && byWeekday : byDay || byWeekday;
}
