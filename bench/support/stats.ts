// Order statistics of the benchmarks' samples. Nothing here imports the project, so a benchmark
// that measures the actor library alone (support/floor.ts) loads nothing else.

/** The value at quantile `q` (0–1) of samples sorted in ascending order. */
export const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** The median of some figures (the mean of the middle two when their count is even). */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
