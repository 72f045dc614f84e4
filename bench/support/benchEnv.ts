// Sizes a benchmark takes from the environment, so that a short run (a check that a part still
// works) needs no edit: `CLUSTER_BENCH_KILLS=3 npm run bench cluster`.

/** The positive number in environment variable `name`, else `fallback`. */
export function envNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(text)}`);
  return value;
}
