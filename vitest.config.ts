import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // The package's own name resolves to its sources, so tests can run the examples as shown.
  resolve: {
    alias: [
      { find: /^agent-schedule$/, replacement: source('./src/index.ts') },
      { find: /^agent-schedule\/testing$/, replacement: source('./src/testing.ts') },
      { find: /^agent-schedule\/machines$/, replacement: source('./src/entries/machines.ts') },
      { find: /^agent-schedule\/postgres$/, replacement: source('./src/entries/postgres.ts') },
      { find: /^agent-schedule\/mcp$/, replacement: source('./src/mcp/index.ts') },
      { find: /^agent-schedule\/console$/, replacement: source('./src/console/index.ts') },
    ],
  },
  test: {
    globals: true,
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Vitest's default of one worker fewer than the cores leaves one of two cores idle; many files
    // wait on child processes and files, so two workers finish the suite well sooner. A third
    // worker on two cores can slow the files whose checks race real time (crash probes, lease
    // expiry, shutdown bounds) past their windows.
    maxWorkers: 2,
    // Each worker keeps its module cache from one file to the next: loading the sources, xstate,
    // the Temporal polyfill and the SDKs once per worker instead of once per file. The tests share
    // no module state (no module mocks, fake timers restored after each test, temp folders and
    // stores of their own), so a file sees what it would in a fresh worker.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
