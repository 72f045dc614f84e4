// fast-check generators of valid cron expressions, built from the grammar of docs/selectors.md: each field
// is a comma list of `*`, `*/S`, `N`, `A-B` and `A-B/S`; star fields start with a `*` item.
import fc from 'fast-check';

/** A field's accepted range in the text (day-of-week accepts 7). */
export interface FieldBounds {
  readonly min: number;
  readonly max: number;
}

export const FIELD_BOUNDS: readonly FieldBounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12 },
  { min: 0, max: 7 },
];

const value = ({ min, max }: FieldBounds) => fc.integer({ min, max });
const step = ({ min, max }: FieldBounds) => fc.oneof(fc.integer({ min: 1, max: max - min + 1 }), fc.integer({ min: 1, max: 100 }));
const range = (b: FieldBounds) => fc.tuple(value(b), value(b)).map(([a, c]) => (a <= c ? [a, c] : [c, a]));

/** An item that starts with `*`. */
export const starItem = (b: FieldBounds) =>
  fc.oneof(
    fc.constant('*'),
    step(b).map((s) => `*/${s}`),
  );

/** An item that does not start with `*`. */
export const plainItem = (b: FieldBounds) =>
  fc.oneof(
    value(b).map(String),
    range(b).map(([a, c]) => `${a}-${c}`),
    fc.tuple(range(b), step(b)).map(([[a, c], s]) => `${a}-${c}/${s}`),
  );

/** One field's text: a star field or not, with one to four items. */
export const fieldText = (b: FieldBounds, star?: boolean) =>
  (star === undefined ? fc.boolean() : fc.constant(star)).chain((isStar) =>
    fc
      .tuple(isStar ? starItem(b) : plainItem(b), fc.array(fc.oneof(starItem(b), plainItem(b), plainItem(b)), { maxLength: 3 }))
      .map(([first, rest]) => [first, ...rest].join(',')),
  );

/** Any valid expression of the grammar. */
export const cronExpression = fc.tuple(...FIELD_BOUNDS.map((b) => fieldText(b))).map((fields) => fields.join(' '));

/**
 * Expressions shaped like real schedules: mostly single values, short lists and steps in the time
 * fields, and stars, ranges or single values in the date fields, so that most match often.
 */
export const typicalCronExpression = fc
  .tuple(
    fc.oneof(fc.constant('*'), value(FIELD_BOUNDS[0]!).map(String), fieldText(FIELD_BOUNDS[0]!)),
    fc.oneof(fc.constant('*'), value(FIELD_BOUNDS[1]!).map(String), fieldText(FIELD_BOUNDS[1]!)),
    fc.oneof({ weight: 3, arbitrary: fc.constant('*') }, fieldText(FIELD_BOUNDS[2]!)),
    fc.oneof({ weight: 3, arbitrary: fc.constant('*') }, fieldText(FIELD_BOUNDS[3]!)),
    fc.oneof({ weight: 2, arbitrary: fc.constant('*') }, fieldText(FIELD_BOUNDS[4]!)),
  )
  .map((fields) => fields.join(' '));
