import { sql } from 'drizzle-orm';
import { boolean, integer, pgEnum, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const goLiveStatus = pgEnum('go_live_status', ['not_requested', 'requested', 'approved', 'rejected']);

export const partners = pgTable('partners', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  goLiveStatus: goLiveStatus('go_live_status').notNull().default('not_requested'),
  // null = the platform default (RATE_LIMIT_PER_SECOND); operators override per partner.
  rateLimitPerSecond: integer('rate_limit_per_second'),
  // The reviewer's note on the last go-live decision (why rejected, what was checked).
  goLiveNote: text('go_live_note'),
  // Who is mailed when one of its webhook subscriptions fails, nears auto-disable, is disabled or
  // recovers (server/notices/): at most 10 addresses, in order, the access request's contact first.
  technicalContacts: text('technical_contacts')
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  // Sandbox endpoints go up and down with a developer's day: their failures notify nobody (no mail,
  // no webhook.* event) unless the partner opts in.
  sandboxNotifications: boolean('sandbox_notifications').notNull().default(false),
  // The version an environment's first request pins when set (server/pins/pin.ts). The migration that
  // introduced versions set it to the first version for every partner that existed then: they integrated
  // against it. null: the version current at that first request.
  firstPinVersion: text('first_pin_version'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
