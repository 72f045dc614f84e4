// The canonical text of a cron expression (docs/selectors.md), which is what records store and what the
// stored-domain decoder insists on. It is computed from the matched value sets and the star-ness
// of each field, so two spellings with the same meaning and the same day rule share one form.
import { parseCron } from './parse.ts';
import { CRON_FIELD_RANGES, type CronFieldRange, type CronFieldSet, type CronSpec } from './spec.ts';

/**
 * The canonical form (docs/selectors.md) of a cron expression.
 *
 * @throws ScheduleError `invalid_rule` exactly as {@link parseCron} does.
 */
export function canonicalizeCron(expression: string): string {
  return formatCron(parseCron(expression));
}

/** True when `expression` is a valid cron expression already in its canonical form. */
export function isCanonicalCron(expression: string): boolean {
  try {
    return formatCron(parseCron(expression)) === expression;
  } catch {
    return false;
  }
}

/** The canonical text of a parsed expression. */
export function formatCron(spec: CronSpec): string {
  const fields = [spec.minute, spec.hour, spec.dayOfMonth, spec.month, spec.dayOfWeek];
  return fields.map((field, i) => formatField(field, CRON_FIELD_RANGES[i]!)).join(' ');
}

function formatField(field: CronFieldSet, range: CronFieldRange): string {
  return field.star ? starForm(field, range) : plainForm(field.values);
}

/**
 * A star field: `*` for the whole range, otherwise the smallest star-step whose walk lies inside
 * the set, followed by the remaining values in plain form.
 */
function starForm(field: CronFieldSet, range: CronFieldRange): string {
  const size = range.foldedMax - range.min + 1;
  if (field.values.length === size) return '*';
  for (let step = 2; step <= size; step++) {
    const walk: number[] = [];
    for (let v = range.min; v <= range.foldedMax; v += step) walk.push(v);
    if (!walk.every((v) => field.next[v] === v)) continue;
    const rest = field.values.filter((v) => (v - range.min) % step !== 0);
    return rest.length === 0 ? `*/${step}` : `*/${step},${plainForm(rest)}`;
  }
  // A star field always matches the field's minimum, so the walk of step `size` qualifies.
  throw new Error(`star field without its minimum value ${range.min}`);
}

/** A non-star field: `a-b/d` for an arithmetic progression of 3+ values with step ≥ 2, else runs. */
function plainForm(values: readonly number[]): string {
  const first = values[0]!;
  const last = values[values.length - 1]!;
  if (values.length >= 3) {
    const step = values[1]! - first;
    if (step >= 2 && values.every((v, i) => v === first + i * step)) return `${first}-${last}/${step}`;
  }
  const runs: string[] = [];
  let start = first;
  for (let i = 1; i <= values.length; i++) {
    const v = values[i];
    const previous = values[i - 1]!;
    if (v === previous + 1) continue;
    runs.push(start === previous ? `${start}` : `${start}-${previous}`);
    if (v !== undefined) start = v;
  }
  return runs.join(',');
}
