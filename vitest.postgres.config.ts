// The PostgreSQL storage tests against a real server (`npm run test:postgres`); `npm test` runs
// the same suites on PGlite instead.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globals: true,
    include: ['test/storage/postgres*.pgtest.ts', 'test/host/postgres*.pgtest.ts', 'test/cluster/*.pgtest.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
