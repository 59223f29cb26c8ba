import { doublePrecision, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { environment } from './credentials';
import { partners } from './partners';

export const quotes = pgTable(
  'quotes',
  {
    id: text('id').primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    pickupLat: doublePrecision('pickup_lat').notNull(),
    pickupLng: doublePrecision('pickup_lng').notNull(),
    dropoffLat: doublePrecision('dropoff_lat').notNull(),
    dropoffLng: doublePrecision('dropoff_lng').notNull(),
    distanceMeters: integer('distance_meters').notNull(),
    feeAmount: integer('fee_amount').notNull(),
    feeCurrency: text('fee_currency').notNull(),
    durationSeconds: integer('duration_seconds').notNull(),
    pickupEta: timestamp('pickup_eta', { withTimezone: true }).notNull(),
    dropoffEta: timestamp('dropoff_eta', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    // Set when an order consumes the quote: quotes are single-use.
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  // Every read is scoped to (partner, environment); the id alone must never be enough.
  (t) => [index('quotes_partner_env_idx').on(t.partnerId, t.environment, t.id)],
);
