// How many cases a property, fuzz or model-based test generates. Each such test names two sizes:
// `short` for `npm test` — the same properties, seeds and kinds of cases, fewer repetitions — and
// `long` for `npm run stress`, which runs the suite again with AGENT_SCHEDULE_LONG=1
// (`npm run test:long`).

/** True when the long forms run (AGENT_SCHEDULE_LONG=1). */
export const LONG_RUNS = process.env.AGENT_SCHEDULE_LONG === '1';

/** The number of cases to run: `long` under `npm run stress`, `short` otherwise. */
export const runs = (sizes: { readonly short: number; readonly long: number }): number => (LONG_RUNS ? sizes.long : sizes.short);
