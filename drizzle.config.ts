import { defineConfig } from 'drizzle-kit';

// Only `drizzle-kit generate` is used (it needs no database): migrations are applied by
// db/migrate.ts at start-up, under an advisory lock so concurrent starts do not race.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
});
