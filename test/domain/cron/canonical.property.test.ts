// Properties of the canonical form (docs/selectors.md) over random valid expressions from the grammar:
// idempotent, preserves every field's matched set (day-of-week with 7 folded into 0) and the
// star-ness of every field, and is accepted by the decoder's check.
import fc from 'fast-check';
import type { CronSpec } from '../../../src/domain/time/cron/index.ts';
import { canonicalizeCron, isCanonicalCron, parseCron } from '../../../src/domain/time/cron/index.ts';
import { cronExpression, FIELD_BOUNDS } from './arbitraries.ts';

const SEED = 20_270_314;

const fieldsOf = (spec: CronSpec) => [spec.minute, spec.hour, spec.dayOfMonth, spec.month, spec.dayOfWeek];

/** The matched sets computed from the text alone, independently of the parser under test. */
function referenceSets(expression: string): number[][] {
  return expression.split(' ').map((text, i) => {
    const { min, max } = FIELD_BOUNDS[i]!;
    const values = new Set<number>();
    for (const item of text.split(',')) {
      const [base, stepText] = item.split('/');
      const step = stepText === undefined ? 1 : Number(stepText);
      const [lo, hi] = base === '*' ? [min, max] : base!.includes('-') ? base!.split('-').map(Number) : [Number(base), Number(base)];
      for (let v = lo!; v <= hi!; v += step) values.add(i === 4 && v === 7 ? 0 : v);
    }
    return [...values].sort((a, b) => a - b);
  });
}

describe('canonicalizeCron properties (fast-check)', () => {
  it('the parser matches the sets a direct reading of the grammar gives', () => {
    fc.assert(
      fc.property(cronExpression, (expression) => {
        expect(fieldsOf(parseCron(expression)).map((f) => f.values)).toEqual(referenceSets(expression));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });

  it('is idempotent and its result passes isCanonicalCron', () => {
    fc.assert(
      fc.property(cronExpression, (expression) => {
        const canonical = canonicalizeCron(expression);
        expect(canonicalizeCron(canonical)).toBe(canonical);
        expect(isCanonicalCron(canonical)).toBe(true);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('preserves every matched set, day-of-week with 7 folded into 0', () => {
    fc.assert(
      fc.property(cronExpression, (expression) => {
        expect(referenceSets(canonicalizeCron(expression))).toEqual(referenceSets(expression));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('preserves the star-ness of every field', () => {
    fc.assert(
      fc.property(cronExpression, (expression) => {
        const before = expression.split(' ').map((f) => f.startsWith('*'));
        const after = canonicalizeCron(expression)
          .split(' ')
          .map((f) => f.startsWith('*'));
        expect(after).toEqual(before);
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('is accepted by isCanonicalCron only when already canonical', () => {
    fc.assert(
      fc.property(cronExpression, (expression) => {
        expect(isCanonicalCron(expression)).toBe(canonicalizeCron(expression) === expression);
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
