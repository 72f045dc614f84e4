// The nearest-rank quantile the delivery summary reports its lateness percentiles with.
import { nearestRankQuantile } from '../../src/domain/reads/quantile.ts';

describe('nearestRankQuantile', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('p50 and p99 of 1…100 are 50 and 99', () => {
    expect(nearestRankQuantile(hundred, 0.5)).toBe(50);
    expect(nearestRankQuantile(hundred, 0.99)).toBe(99);
    expect(nearestRankQuantile(hundred, 1)).toBe(100);
  });

  it('answers a value of the sample: one value is every quantile', () => {
    expect(nearestRankQuantile([7], 0.5)).toBe(7);
    expect(nearestRankQuantile([7], 0.99)).toBe(7);
    expect(nearestRankQuantile([1, 2, 3], 0.5)).toBe(2);
    expect(nearestRankQuantile([1, 2, 3], 0.01)).toBe(1);
  });

  it('an empty sample has no quantile', () => {
    expect(nearestRankQuantile([], 0.5)).toBeUndefined();
  });
});
