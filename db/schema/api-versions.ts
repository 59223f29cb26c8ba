import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { environment } from './credentials';
import { partners } from './partners';

// The version of the partner API each partner environment speaks (server/pins/), pinned at its first
// request. Sandbox and production apart, so an upgrade can be tried in the sandbox first.
export const apiVersionPins = pgTable(
  'api_version_pins',
  {
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    version: text('version').notNull(),
    // The pin the last upgrade replaced: what a rollback returns to, within 72 h of `changed_at`. null
    // before any upgrade and after a rollback.
    previousVersion: text('previous_version'),
    pinnedAt: timestamp('pinned_at', { withTimezone: true }).notNull(),
    // The last upgrade or rollback.
    changedAt: timestamp('changed_at', { withTimezone: true }),
  },
  // Read with every credential the cache loads: by its partner and environment.
  (t) => [primaryKey({ columns: [t.partnerId, t.environment] })],
);
