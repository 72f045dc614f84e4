// Parsing of the 5-field Vixie cron dialect of docs/selectors.md into a CronSpec. Anything outside the
// dialect is refused with `invalid_rule` and a message naming the offending field and saying
// what it accepts. Fields are separated by runs of spaces or tabs; leading and trailing spaces
// and tabs are ignored.
import { describeValue } from '../../args/argShape.ts';
import { ScheduleError } from '../../errors.ts';
import { CRON_FIELD_RANGES, type CronFieldName, type CronFieldRange, type CronSpec, fieldSet } from './spec.ts';

const FIELDS = '5 fields separated by spaces (minute hour day-of-month month day-of-week)';
const FORMS = 'written as a comma list of *, N, A-B, */S or A-B/S (S at least 1)';

const ACCEPTS: Record<CronFieldName, string> = {
  minute: 'minute accepts 0-59',
  hour: 'hour accepts 0-23',
  'day-of-month': 'day-of-month accepts 1-31',
  month: 'month accepts 1-12',
  'day-of-week': 'day-of-week accepts 0-7 (0 and 7 are Sunday)',
};

const NAMES = new Set('jan feb mar apr may jun jul aug sep oct nov dec sun mon tue wed thu fri sat'.split(' ').map((n) => n.toUpperCase()));

/**
 * Parses a 5-field cron expression (docs/selectors.md).
 *
 * @param expression - the value supplied; anything but a string is refused.
 * @param field - the argument name used in error messages.
 * @throws ScheduleError `invalid_rule` naming the offending cron field.
 */
export function parseCron(expression: unknown, field = 'cron.expression'): CronSpec {
  if (typeof expression !== 'string') {
    throw invalidRule(`${field} must be a string of ${FIELDS}, for example "*/15 9-17 * * 1-5".`);
  }
  if (/[^\S \t]/.test(expression)) {
    throw invalidRule(`${field} contains a line break or other whitespace besides spaces and tabs; write ${FIELDS} on one line.`);
  }
  const text = expression.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === '') throw invalidRule(`${field} is empty; it needs ${FIELDS}.`);
  if (text.startsWith('@')) {
    throw invalidRule(
      `${field} ${describeValue(text)}: macros such as @daily are not supported; write the ${FIELDS} instead, for example "0 0 * * *" for every day at midnight.`,
    );
  }
  const parts = text.split(/[ \t]+/);
  if (parts.length !== 5) {
    const extra = parts.length > 5 ? '; seconds and year fields are not supported' : '';
    const count = `${parts.length} field${parts.length === 1 ? '' : 's'}`;
    throw invalidRule(`${field} ${describeValue(text)} has ${count}; it needs ${FIELDS}${extra}.`);
  }
  const [minute, hour, dom, month, dow] = CRON_FIELD_RANGES;
  const [minuteText, hourText, domText, monthText, dowText] = parts as [string, string, string, string, string];
  const weekdays = parseField(dowText, dow, field);
  if (weekdays[7] !== 0) weekdays[0] = 1;
  return {
    source: expression,
    minute: fieldSet(parseField(minuteText, minute, field), minuteText.startsWith('*'), minute),
    hour: fieldSet(parseField(hourText, hour, field), hourText.startsWith('*'), hour),
    dayOfMonth: fieldSet(parseField(domText, dom, field), domText.startsWith('*'), dom),
    month: fieldSet(parseField(monthText, month, field), monthText.startsWith('*'), month),
    dayOfWeek: fieldSet(weekdays, dowText.startsWith('*'), dow),
    domStar: domText.startsWith('*'),
    dowStar: dowText.startsWith('*'),
  };
}

/** Membership of the values one field's text matches, indexed by value (day-of-week not yet folded). */
function parseField(text: string, range: CronFieldRange, argument: string): Uint8Array {
  const members = new Uint8Array(range.max + 1);
  for (const item of text.split(',')) {
    const parsed = parseItem(item, range);
    if (typeof parsed === 'string') {
      const where = item === text ? '' : ` (item ${describeValue(item)})`;
      throw invalidRule(
        `${argument}: the ${range.name} field ${describeValue(text)} ${parsed.replace('%', where)}; ${ACCEPTS[range.name]}, ${FORMS}.`,
      );
    }
    for (let v = parsed.lo; v <= parsed.hi; v += parsed.step) members[v] = 1;
  }
  return members;
}

/** The values `lo` to `hi` by `step` of one list item. */
interface ItemRange {
  readonly lo: number;
  readonly hi: number;
  readonly step: number;
}

/** One list item as a range, or what is wrong with it (`%` marks where to name the item). */
function parseItem(item: string, range: CronFieldRange): ItemRange | string {
  if (item === '') return 'has an empty list item (a doubled, leading or trailing comma)';
  if (/[A-Za-z]/.test(item) && item.split(/[-/]/).some((part) => NAMES.has(part.toUpperCase()))) {
    return 'uses a name%; names are not supported, use numbers';
  }
  if (/[LW#?]/i.test(item)) return 'uses L, W, # or ?%, which are not supported';
  const slash = item.indexOf('/');
  const base = slash < 0 ? item : item.slice(0, slash);
  let step = 1;
  if (slash >= 0) {
    const stepText = item.slice(slash + 1);
    if (!/^\d+$/.test(stepText)) return stepText === '' ? 'has no step after "/"%' : 'has an invalid step%';
    step = Number(stepText);
    if (step === 0) return 'has a zero step%; steps must be at least 1';
  }
  if (base === '*') return { lo: range.min, hi: range.max, step };
  const match = /^(\d+)(?:-(\d+))?$/.exec(base);
  if (match === null) return 'is not valid%';
  const lo = Number(match[1]);
  const hi = match[2] === undefined ? lo : Number(match[2]);
  const outside = [lo, hi].find((v) => v < range.min || v > range.max);
  if (outside !== undefined) return `has the value ${outside}, which is out of range`;
  if (lo > hi) return `has the inverted range ${lo}-${hi} (the start must not exceed the end)`;
  if (slash >= 0 && match[2] === undefined) {
    return `has a step after the single value ${lo}%: a step needs * or a range before it (write */${step} or ${lo}-${range.max}/${step})`;
  }
  return { lo, hi, step };
}

const invalidRule = (message: string): ScheduleError => new ScheduleError('invalid_rule', message);
