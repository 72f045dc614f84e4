// The source path of the `agent-schedule/machines` entry: tools that resolve the package's
// subpaths to source (the acceptance suites, a Host's monorepo alias) look for it here. The entry
// itself is `src/entries/machines.ts`, which sits above both layers; this file only points at it
// and nothing in machines/ imports it.
export * from '../src/entries/machines.ts';
