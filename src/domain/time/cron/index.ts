// The cron engine (docs/selectors.md): parsing of the 5-field Vixie dialect, the canonical stored form,
// static feasibility, and the search for firing instants in a time zone.
export { canonicalizeCron, formatCron, isCanonicalCron } from './canonical.ts';
export { cronCanMatch, cronDateMatches } from './match.ts';
export { parseCron } from './parse.ts';
export { latestCronAtOrBefore, nextCronAfter } from './search.ts';
export { CRON_FIELD_RANGES, type CronFieldName, type CronFieldRange, type CronFieldSet, type CronSpec } from './spec.ts';
