import { index, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { partners } from './partners';

export const environment = pgEnum('environment', ['sandbox', 'production']);

export const credentials = pgTable(
  'credentials',
  {
    id: text('id').primaryKey(),
    // Public half of the pair, sent as X-Client-ID.
    clientId: text('client_id').notNull(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    // SHA-256 of the whole API key, hex. The plaintext is shown once and never stored.
    keyHash: text('key_hash').notNull(),
    // Last 4 characters, so operators can tell keys apart without the secret.
    keyLast4: text('key_last4').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [
    // The hot path looks a key up by its hash; unique so two keys can never collide silently.
    uniqueIndex('credentials_key_hash_idx').on(t.keyHash),
    uniqueIndex('credentials_client_id_idx').on(t.clientId),
    index('credentials_partner_idx').on(t.partnerId),
  ],
);
