import { integer, pgEnum, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const goLiveStatus = pgEnum('go_live_status', ['not_requested', 'requested', 'approved', 'rejected']);

export const partners = pgTable('partners', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  goLiveStatus: goLiveStatus('go_live_status').notNull().default('not_requested'),
  // null = the platform default (RATE_LIMIT_PER_SECOND); operators override per partner.
  rateLimitPerSecond: integer('rate_limit_per_second'),
  // The reviewer's note on the last go-live decision (why rejected, what was checked).
  goLiveNote: text('go_live_note'),
  // The version an environment's first request pins when set (server/pins/pin.ts). The migration that
  // introduced versions set it to the first version for every partner that existed then: they integrated
  // against it. null: the version current at that first request.
  firstPinVersion: text('first_pin_version'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
