import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: import.meta.dirname + '/' },
      // The partner's client, by the name its README imports it with.
      { find: /^@partner-delivery\/client$/, replacement: path.resolve(import.meta.dirname, 'clients/typescript/src/index.ts') },
      // One copy of graphql, or type-graphql and Apollo see two realms.
      { find: /^graphql$/, replacement: path.resolve(import.meta.dirname, 'node_modules/graphql/index.js') },
    ],
  },
  test: {
    include: ['**/*.test.ts'],
    // test/pg runs only through `npm run test:pg` (vitest.pg.config.mts), on a server of DATABASE_URL's.
    exclude: ['node_modules/**', 'e2e/**', '.next/**', '.data*/**', 'test/pg/**'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Two files at once: vitest's default is cores - 1, one file at a time on CI's 2 cores, and most files
    // spend their time waiting on the services, workers and receivers they start (each has its own database).
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
