import { doublePrecision, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// One token bucket per credential, shared by every web process. Processes lease tokens in small
// batches (server/rate-limit/limiter.ts), so the row is touched a few times a second per busy
// credential, not on every request.
export const rateLimitBuckets = pgTable('rate_limit_buckets', {
  clientId: text('client_id').primaryKey(),
  tokens: doublePrecision('tokens').notNull(),
  // What the last lease took; RETURNING sees only the new row, so the grant is kept here.
  lastGrant: doublePrecision('last_grant').notNull().default(0),
  refilledAt: timestamp('refilled_at', { withTimezone: true, precision: 6 }).notNull(),
});
