import { integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { environment } from './credentials';

export const idempotencyState = pgEnum('idempotency_state', ['in_progress', 'completed']);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    partnerId: text('partner_id').notNull(),
    environment: environment('environment').notNull(),
    key: text('key').notNull(),
    // SHA-256 over method, path and body: the same key with another request is refused.
    requestHash: text('request_hash').notNull(),
    state: idempotencyState('state').notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  // Keys are per partner and environment, like every other partner object.
  (t) => [primaryKey({ columns: [t.partnerId, t.environment, t.key] })],
);
