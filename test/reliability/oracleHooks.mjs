// Module resolution for running the reliability checks outside vitest (`npm run stress`): the
// bare name 'acceptance-oracle' is the acceptance suite's brute-force reference, loaded as an ES
// module, and its one dependency, temporal-polyfill, resolves from this project (the same
// aliases vitest.config.ts sets up for the test runs).
const oracle = new URL('../../../shared/acceptance/oracle.ts', import.meta.url).href;
const project = new URL('../../package.json', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (specifier === 'acceptance-oracle') return { ...(await next(oracle, context)), format: 'module' };
  if (specifier === 'temporal-polyfill' && context.parentURL === oracle) return next(specifier, { ...context, parentURL: project });
  return next(specifier, context);
}
