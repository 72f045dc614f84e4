// Quantiles of a sample by the nearest-rank method: the answer is always one of the values
// observed, so a reported p99 lateness is a lateness that really happened.

/**
 * The `q`-quantile (0 < q ≤ 1) of `sorted`, which must be in ascending order: the smallest value
 * with at least `q` of the sample at or below it. Undefined for an empty sample.
 */
export function nearestRankQuantile(sorted: readonly number[], q: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}
