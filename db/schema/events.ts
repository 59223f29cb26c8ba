import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { environment } from './credentials';
import { partners } from './partners';

export interface EventEnvelope {
  id: string;
  object: 'event';
  created: number;
  livemode: boolean;
  type: string;
  data: { object: Record<string, unknown> & { id: string; status: string } };
}

// The transactional outbox: one row per event, written in the transaction of the change that caused it.
// Partitioned by RANGE (id), a week a partition (ids are ULIDs: the bound of a week is the id floor of its start),
// made ahead and dropped whole by server/history/ (db/migrations/0015_history_partitions.sql).
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    type: text('type').notNull(),
    // The resource the event is about (an order id, a webhook subscription id), for filtering.
    objectId: text('object_id').notNull(),
    // The envelope as the first version delivers it (the resource whole, as its GET returned it then),
    // frozen at the time of the change; every version renders from it (server/events/present.ts).
    envelope: jsonb('envelope').$type<EventEnvelope>().notNull(),
    // The fields of the resource this event changed, with their values before it; null for a creation,
    // webhook.test, and events written before versions existed.
    previousAttributes: jsonb('previous_attributes').$type<Record<string, unknown>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    // Partner lists: scoped and paginated by id.
    index('events_partner_env_id_idx').on(t.partnerId, t.environment, t.id),
    index('events_object_idx').on(t.objectId),
    // Replays select a window by creation time.
    index('events_created_idx').on(t.createdAt),
  ],
);
