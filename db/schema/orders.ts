import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { environment } from './credentials';
import { partners } from './partners';
import { quotes } from './quotes';

export interface StopJson {
  lat: number;
  lng: number;
  contact: { name: string; phone: string } | null;
  instructions: string | null;
}
export interface CourierJson {
  id: string;
  name: string;
  phone: string;
  vehicle: string;
}
export interface CancellationJson {
  reason: string;
  source: 'partner' | 'courier' | 'operator' | 'system';
}
export interface SimulationJson {
  scenario: string;
  step_seconds: number;
  /** Index of the next scenario step; a step job whose index differs is stale and does nothing. */
  next_step: number;
}

export const orders = pgTable(
  'orders',
  {
    id: text('id').primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    status: text('status').notNull(),
    // Unique: a quote is single-use, and this makes a double use impossible even under a race.
    quoteId: text('quote_id')
      .notNull()
      .references(() => quotes.id),
    externalId: text('external_id'),
    pickup: jsonb('pickup').$type<StopJson>().notNull(),
    dropoff: jsonb('dropoff').$type<StopJson>().notNull(),
    feeAmount: integer('fee_amount').notNull(),
    feeCurrency: text('fee_currency').notNull(),
    courier: jsonb('courier').$type<CourierJson>(),
    cancellation: jsonb('cancellation').$type<CancellationJson>(),
    statusHistory: jsonb('status_history').$type<{ status: string; at: number }[]>().notNull(),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    simulation: jsonb('simulation').$type<SimulationJson>(),
    // The partner request that created it (X-Request-Id, `req_...`): a ticket quoting that id finds the order.
    requestId: text('request_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('orders_quote_idx').on(t.quoteId),
    // external_id is the partner's own reference: unique per partner and environment.
    uniqueIndex('orders_external_id_idx')
      .on(t.partnerId, t.environment, t.externalId)
      .where(sql`${t.externalId} is not null`),
    // The console's "find by id" takes an external id from a ticket without knowing the partner: the unique
    // index above leads with partner_id, so that lookup read every order (Postgres 15-17 cannot skip-scan).
    index('orders_external_id_lookup_idx')
      .on(t.externalId)
      .where(sql`${t.externalId} is not null`),
    // A request id from a ticket finds the order it created. Request ids are ULIDs behind `req_`, so new
    // entries land on the index's right edge, as the primary key's do.
    index('orders_request_id_idx')
      .on(t.requestId)
      .where(sql`${t.requestId} is not null`),
    // Lists are scoped to (partner, environment) and paginated by id (ULIDs sort by creation time).
    index('orders_partner_env_id_idx').on(t.partnerId, t.environment, t.id),
    // The sandbox timeout sweep looks for old open sandbox orders.
    index('orders_open_sandbox_idx')
      .on(t.createdAt)
      .where(sql`${t.environment} = 'sandbox' and ${t.status} not in ('delivered', 'returned', 'cancelled')`),
  ],
);
