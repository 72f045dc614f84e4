// The Prometheus exposition checked by Prometheus's own linter (`npm run test:metrics`): needs
// `promtool` on PATH (Debian's `prometheus` package), so it is kept out of `npm test`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globals: true,
    include: ['test/metrics/**/*.promtool.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
