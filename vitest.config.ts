import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const shared = fileURLToPath(new URL('../shared/', import.meta.url));
const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    alias: [
      // The acceptance suite's brute-force reference for next targets, used by property tests.
      { find: /^acceptance-oracle$/, replacement: `${shared}acceptance/oracle.ts` },
      // The oracle lives outside this project: resolve its one dependency from here.
      { find: /^temporal-polyfill$/, replacement: require.resolve('temporal-polyfill') },
    ],
  },
  server: { fs: { allow: [root, shared] } },
  test: {
    globals: true,
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
