import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { environment } from './credentials';
import { partners } from './partners';

export interface PreviousSecret {
  sealed: string;
  /** ISO time after which it no longer signs. */
  expires_at: string;
}

export const subscriptionStatus = pgEnum('webhook_subscription_status', ['enabled', 'disabled']);

export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: text('id').primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    // Empty: every catalog type.
    eventFilters: jsonb('event_filters').$type<string[]>().notNull(),
    status: subscriptionStatus('status').notNull(),
    disabledReason: text('disabled_reason'),
    // AES-256-GCM (server/crypto/secret-box.ts); never returned after creation or rotation.
    secretSealed: text('secret_sealed').notNull(),
    // Secrets replaced by a rotation, newest first: each keeps signing until its own expiry (24 h after
    // the rotation that replaced it), at most three of them (server/webhooks/rotate-secret.ts).
    previousSecrets: jsonb('previous_secrets')
      .$type<PreviousSecret[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    // First failure since the last success: auto-disable measures from here.
    failingSince: timestamp('failing_since', { withTimezone: true }),
    // The failing streak at a glance, written with each failure (server/delivery/disabled.ts) so the
    // failure notices (server/notices/) never count attempts: failures since failing_since, and the last one.
    streakFailures: integer('streak_failures').notNull().default(0),
    lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
    lastErrorKind: text('last_error_kind'),
    lastResponseStatus: integer('last_response_status'),
    // Set by the success that ended a streak (its failing_since, and when), until the notices job has
    // told whoever it had told of the streak that it recovered: a fact that outlives a crashed worker.
    recoveredFrom: timestamp('recovered_from', { withTimezone: true }),
    recoveredAt: timestamp('recovered_at', { withTimezone: true }),
    // The version its deliveries are rendered in (the creating request's, or as PATCHed). The default is
    // the first version (server/versions/registry.ts FIRST_VERSION), what subscriptions made before
    // versions existed speak; the service always names one.
    apiVersion: text('api_version').notNull().default('2026-11-01'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (t) => [
    // Fan-out reads the live subscriptions of one partner and environment for every event.
    index('webhook_subscriptions_scope_idx')
      .on(t.partnerId, t.environment)
      .where(sql`${t.deletedAt} is null`),
  ],
);

export const deliveryStatus = pgEnum('webhook_delivery_status', ['pending', 'succeeded', 'failed', 'skipped']);

// Partitioned by RANGE (event_id), a week a partition, with its event's week (db/migrations/0015_history_partitions.sql,
// server/history/): the unique (event_id, subscription_id) that fan-out's ON CONFLICT names must hold the partition
// key, and a week of events leaves with its deliveries. So the primary key holds the event id too, and no foreign key
// names the event (one into a partitioned table makes every DETACH search the referencing table): every statement
// that writes a delivery reads its event in the same statement or transaction, and retention drops both together.
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').notNull(),
    eventId: text('event_id').notNull(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id),
    eventType: text('event_type').notNull(),
    status: deliveryStatus('status').notNull(),
    // Attempts started so far; the next attempt's job carries attempts + 1.
    attempts: integer('attempts').notNull().default(0),
    // Set while an attempt is in flight: another worker may take the attempt over only after it passes
    // (its owner died), so one attempt is never sent twice concurrently.
    claimedUntil: timestamp('claimed_until', { withTimezone: true }),
    // Which worker holds the claim (its worker_heartbeats id), set with claimed_until and cleared with it. A
    // lapsed claim whose holder still beats is not taken from it: the holder stalled (a 2.6 GB heap froze one
    // for seconds), and taking its attempts made both workers send them (issue 23).
    claimedBy: text('claimed_by'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    // The replay that last re-sent it (a replay's delivered and failed counts are read from here).
    replayId: text('replay_id'),
    // The version its attempts render the event in: the subscription's when the delivery was made, or
    // reopened by a redelivery or replay. Retries keep it, so every retry sends the same bytes. Defaults to
    // the first version, as for subscriptions.
    apiVersion: text('api_version').notNull().default('2026-11-01'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    // A delivery is found by its id alone (jobs carry only it): this index leads with it, and each partition has its own.
    primaryKey({ columns: [t.id, t.eventId] }),
    // Exactly one delivery per (event, subscription): no path can fan an event out twice.
    uniqueIndex('webhook_deliveries_event_subscription_idx').on(t.eventId, t.subscriptionId),
    // The partner's delivery log: newest first per subscription.
    index('webhook_deliveries_subscription_idx').on(t.subscriptionId, t.id),
    // A replay's progress: its deliveries by status.
    index('webhook_deliveries_replay_idx')
      .on(t.replayId, t.status)
      .where(sql`${t.replayId} is not null`),
    // Deliveries not ended (in flight, or waiting for a retry): retention asks whether a leaving week holds one
    // (server/history/retain.ts), and the console's overview counts them. Only pending rows are in it, so it costs
    // a delivery one small insert at its creation, and a sequential read of a week's deliveries is never needed.
    // Keyed by the moment each is due (its retry's time, else its creation): the overview's oldest due delivery is
    // the index's first entry and the due ones a range of it, however long the backlog (migration 0021; keyed by
    // event id, the overview read every pending row: p50 181 ms beside the bench's other scenarios' backlog). The
    // two columns after it let Postgres answer from the index alone (it computes no expression from an index's
    // key; drizzle-kit writes no INCLUDE).
    index('webhook_deliveries_pending_idx')
      .on(sql`coalesce(${t.nextAttemptAt}, ${t.createdAt})`, t.nextAttemptAt, t.createdAt)
      .where(sql`${t.status} = 'pending'`),
    // A subscription's backlog on its health page: its pending deliveries, oldest first, the moment each is due
    // beside. The count stops at BACKLOG_COUNT_LIMIT and the oldest is the first entry; the due ones are counted
    // among this subscription's pending entries only. Without it the page read every delivery the subscription
    // ever had through webhook_deliveries_subscription_idx, or every pending delivery of every subscription's.
    // Pending rows only, like webhook_deliveries_pending_idx: one small insert per delivery made.
    index('webhook_deliveries_subscription_pending_idx')
      .on(t.subscriptionId, t.createdAt, t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    // The deliveries page filtered to a status class that needs an answer (3xx, 4xx, 5xx): deliveries attempted and
    // not succeeded, newest first. webhook_deliveries_unsettled_idx holds the deliveries never attempted as well; a
    // backlog of new ones (the engine behind a burst) lay ahead of every answered one, each probed for its latest
    // status (5xx p99 55.9 ms beside the bench's orders backlog). A delivery enters on its first failed attempt.
    index('webhook_deliveries_answered_unsettled_idx')
      .on(t.id)
      .where(sql`${t.status} <> 'succeeded' and ${t.lastAttemptAt} is not null`),
    // The console's deliveries page filtered to an outcome other than succeeded, or to a latest status other than
    // 2xx (a delivery whose latest attempt did not answer 2xx is never succeeded): newest first among the
    // deliveries not succeeded, a small share of the history. Without it the page walked the primary key through
    // every succeeded delivery (issue 29: failed deliveries of a small partner p99 125 ms, status 5xx p50 566 ms at
    // 1,000,000 attempts). Queries name the predicate as a literal, so generic plans of prepared statements use it.
    index('webhook_deliveries_unsettled_idx')
      .on(t.id)
      .where(sql`${t.status} <> 'succeeded'`),
    // The console's deliveries page filtered to an event type: newest first among that type's. Without it the page
    // walked the primary key through every newer delivery of other types (issue 29: p50 47 ms beside the delivery
    // bench's 115,770 newer deliveries at 1,000,000 attempts, 167 ms on Debian's PostgreSQL 15; 4 ms with it). Its
    // price: 70 bytes a delivery (42 MB at 615,000), one more entry written per delivery made.
    index('webhook_deliveries_event_type_idx').on(t.eventType, t.id),
    // Attempts held by a worker (claimed, in flight or waiting in its memory): the sweeper finds the
    // expired ones of dead workers here. Only held rows are in it, so it stays as small as the work in hand.
    index('webhook_deliveries_claims_idx')
      .on(t.claimedUntil)
      .where(sql`${t.status} = 'pending' and ${t.claimedUntil} is not null`),
  ],
);

// Partitioned by RANGE (id), a week a partition: an attempt's id is made when it is recorded, so attempts fill
// the current week whatever their event's age, and a partition is never written after its week. No foreign key to
// its delivery (a delivery's id alone is not unique across partitions): attempts are written only by
// record-outcomes.ts, in the statement or transaction that updates the delivery it names while claimed.
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    deliveryId: text('delivery_id').notNull(),
    attempt: integer('attempt').notNull(),
    trigger: text('trigger').notNull(), // scheduled | manual | replay
    // Who asked for a manual or replay attempt: "partner:<client id>" or "operator:<e-mail>"; null when scheduled.
    requestedBy: text('requested_by'),
    // The version the attempt's body was rendered in (its delivery's then); the first version for attempts
    // made before versions existed.
    apiVersion: text('api_version').notNull().default('2026-11-01'),
    // The address the attempt connected to (after the SSRF check); null when it never connected.
    resolvedAddress: text('resolved_address'),
    startedAt: timestamp('started_at', { withTimezone: true, precision: 3 }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    responseStatus: integer('response_status'),
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
    // First 16 KiB.
    responseBody: text('response_body'),
    // null on success; else timeout | connection | tls | dns | blocked_address | http_status | internal
    errorKind: text('error_kind'),
    errorMessage: text('error_message'),
  },
  (t) => [
    index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attempt),
    // The overview's latest failures, newest first: without it the walk read every newer attempt that succeeded (issue
    // 29: 453 ms on Debian's PostgreSQL 15 past the delivery bench's 115,780 newer successes, the overview's p99 142 ms
    // beside it; 5.7 ms with it). Only failed attempts are in it: an attempt that succeeds writes no entry.
    index('webhook_attempts_failed_idx')
      .on(t.id)
      .where(sql`${t.errorKind} is not null`),
  ],
);
