import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { environment } from './credentials';
import { partners } from './partners';
import { webhookSubscriptions } from './webhooks';

/** The streak as a notice told it (Unix seconds), in its e-mails and as its webhook.* event's `failure_streak` (server/notices/streak.ts). */
export interface NoticeStreak {
  stage: string;
  /** The first failure: the streak's failing_since. */
  started: number;
  /** Failed attempts since, and the last one; null once a newer streak has begun (a recovery told late). */
  failed_attempts: number | null;
  last_failure: { at: number; error_kind: string | null; response_status: number | null } | null;
  /** While it fails: the first failure after this disables the subscription (too_many_failures). */
  disables_after: number | null;
  /** When it was disabled, or recovered. */
  ended: number | null;
}

// One row per (subscription, failing streak, stage) that was announced: the row is the claim, so two
// workers that reach the same stage at once mail it once (server/notices/advance.ts). A streak is named
// by its failing_since. Kept EVENT_RETENTION_DAYS, like the events they announced.
export const webhookNotices = pgTable(
  'webhook_notices',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    streakSince: timestamp('streak_since', { withTimezone: true }).notNull(),
    // failing | warning_50 | warning_90 | disabled | recovered
    stage: text('stage').notNull(),
    streak: jsonb('streak').$type<NoticeStreak>().notNull(),
    // The messages queued (mail_messages ids, one per contact) and the webhook.* event emitted (no
    // foreign key: the event may be purged before the notice).
    mailIds: text('mail_ids')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    eventId: text('event_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('webhook_notices_stage_idx').on(t.subscriptionId, t.streakSince, t.stage),
    // The console's and the CLI's lists: a subscription's or a partner's notices, newest first.
    index('webhook_notices_partner_idx').on(t.partnerId, t.id),
  ],
);
