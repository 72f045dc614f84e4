// Browser tests of the web task page (`npm run test:e2e`): real Chromium driven by playwright-core
// against an in-process Host on a test clock. Kept out of `npm test`, which needs no browser.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globals: true,
    include: ['test/e2e/**/*.e2e.ts'],
    environment: 'node',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
