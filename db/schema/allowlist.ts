import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { partners } from './partners';

export const allowlistEntries = pgTable(
  'allowlist_entries',
  {
    id: text('id').primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    // Normalised CIDR text (network address + prefix), e.g. 203.0.113.0/24 or 2001:db8::/32.
    cidr: text('cidr').notNull(),
    label: text('label'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('allowlist_partner_cidr_idx').on(t.partnerId, t.cidr)],
);
