import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { environment } from './credentials';
import { partners } from './partners';
import { webhookSubscriptions } from './webhooks';

export const replayStatus = pgEnum('webhook_replay_status', ['queued', 'running', 'completed', 'cancelled', 'failed']);
export const replayMode = pgEnum('webhook_replay_mode', ['all', 'failed', 'missing']);

// A replay: a window of past events re-sent to one subscription, paged through by jobs that record
// their cursor here, so a worker that dies mid-way is resumed where it stopped (server/replays/).
export const webhookReplays = pgTable(
  'webhook_replays',
  {
    id: text('id').primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id),
    status: replayStatus('status').notNull(),
    since: timestamp('since', { withTimezone: true }).notNull(),
    until: timestamp('until', { withTimezone: true }).notNull(),
    // null: every type the subscription's filters accept.
    eventTypes: jsonb('event_types').$type<string[] | null>(),
    only: replayMode('only').notNull(),
    eventsMatched: integer('events_matched').notNull(),
    eventsEnqueued: integer('events_enqueued').notNull().default(0),
    // The last event id sent; the next page starts after it.
    cursor: text('cursor'),
    // Counts the replay's page jobs: a job carries the step it was made for, and one whose step has
    // passed (a retried job whose successor already exists) does nothing, so no page is sent twice.
    jobStep: integer('job_step').notNull().default(0),
    // Who asked: { kind: 'partner', credential_id } or { kind: 'operator', operator_id }.
    requestedBy: jsonb('requested_by').$type<Record<string, string>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (t) => [
    // One replay at a time per subscription: a second one while the first is queued or running is a 409.
    uniqueIndex('webhook_replays_active_idx')
      .on(t.subscriptionId)
      .where(sql`${t.status} in ('queued', 'running')`),
    // The subscription's replay list, newest first.
    index('webhook_replays_subscription_idx').on(t.subscriptionId, t.id),
  ],
);
