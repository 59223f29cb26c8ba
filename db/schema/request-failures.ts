import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { environment } from './credentials';

// Partner requests that failed after passing authentication, the allowlist and the rate limit: what the
// request id of an error body names, for support (server/request-failures/). Bounded by the rate limit on
// the way in and by age and count on the way out (purge.ts). No foreign key: a row outlives nothing it
// needs, and its insert must not wait on a partner's row lock.
export const requestFailures = pgTable('request_failures', {
  // `req_` + a ULID: sorts by time, so the purge deletes a range of the primary key and needs no other index.
  requestId: text('request_id').primaryKey(),
  partnerId: text('partner_id').notNull(),
  environment: environment('environment').notNull(),
  clientId: text('client_id').notNull(),
  method: text('method').notNull(),
  // As the access log writes it (server/http/logged-path.ts): no query string, token-like segments redacted.
  path: text('path').notNull(),
  status: integer('status').notNull(),
  code: text('code').notNull(),
  message: text('message').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull(),
});
