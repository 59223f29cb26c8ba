import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, smallint, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The counts a rollup row holds for its subscription and span (a minute or an hour), and the largest attempt id
 * counted: one definition for both grains, made afresh for each table (Drizzle binds a column to its table).
 */
function attemptCounts() {
  return {
    attempts: integer('attempts').notNull(),
    // error_kind is null: what the queries have always called a success.
    succeeded: integer('succeeded').notNull(),
    // By response status class (server/history/attempt-counts.ts statusClassOf): none (no response), 2xx, 3xx, 4xx, 5xx.
    statusNone: integer('status_none').notNull(),
    status2xx: integer('status_2xx').notNull(),
    status3xx: integer('status_3xx').notNull(),
    status4xx: integer('status_4xx').notNull(),
    status5xx: integer('status_5xx').notNull(),
    // The durations as a sparse histogram over fixed log-spaced bins (pdp_duration_bin in migration 0017; the bins
    // and the error bound of a percentile read from them: server/history/duration-histogram.ts): the bins that
    // hold an attempt, ascending, and how many each holds.
    durationBins: smallint('duration_bins').array().notNull(),
    durationCounts: integer('duration_counts').array().notNull(),
    // The largest attempt id counted: a window starting inside this minute reads the minute's attempts from
    // webhook_attempts up to this id (ids are made when an attempt is recorded, so no other bound exists).
    lastAttemptId: text('last_attempt_id').notNull(),
  };
}

// Per-subscription, per-minute counts of webhook_attempts (issue 29), kept by the maintenance job's rollup pass
// (server/history/rollup.ts): the console's overview, a subscription's health and the partners' success rates read
// closed minutes here and only the attempts not yet rolled up from webhook_attempts, so their cost no longer grows with
// the history (at 10,000,000 attempts the health of one subscription over 7 days read every attempt of the week: 5 s).
// A row counts the attempts with an id below the watermark (webhook_attempt_rollup) whose started_at falls in its
// minute; an attempt recorded after its minute was rolled up is added to the row by the next pass (upsert).
export const webhookAttemptMinutes = pgTable(
  'webhook_attempt_minutes',
  {
    // No foreign key: rows outlive nothing they name, and a delete of a subscription row never happens (soft delete).
    subscriptionId: text('subscription_id').notNull(),
    // The minute the attempts started in (date_trunc('minute', started_at)).
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    ...attemptCounts(),
  },
  (t) => [
    // A subscription's minutes over a window (health, success rates, a streak).
    primaryKey({ columns: [t.subscriptionId, t.minute] }),
    // Every subscription's minutes over a window (the overview), and retention's delete of old minutes. The migration
    // adds INCLUDE (attempts, succeeded), which drizzle-kit cannot say: the overview reads the index alone.
    index('webhook_attempt_minutes_minute_idx').on(t.minute),
  ],
);

// The rollup's watermark, one row: every attempt with an id below attempt_id is counted in webhook_attempt_minutes,
// none at or above it. A pass locks the row, counts [attempt_id, new watermark) and moves it in one transaction, so a
// second pass (another worker, a re-run) waits and then counts only what the first left: nothing is counted twice.
export const webhookAttemptRollup = pgTable(
  'webhook_attempt_rollup',
  {
    only: boolean('only').primaryKey().default(true),
    attemptId: text('attempt_id').notNull(),
    rolledUpAt: timestamp('rolled_up_at', { withTimezone: true }),
  },
  (t) => [check('webhook_attempt_rollup_one_row', sql`${t.only}`)],
);

// webhook_attempt_minutes summed per hour (migration 0018): the same columns, kept by the same statement of the rollup
// pass, so under the watermark an hour's row is always the sum of its minutes' rows. A 7-day health read 10,080 minute
// rows of one subscription and unnested their histograms (1,000,000 attempts: its statement 70 ms); at hour grain it
// reads 168 rows and at most 59 minutes on each side (server/history/attempt-minutes.ts attemptMinutes).
export const webhookAttemptHours = pgTable(
  'webhook_attempt_hours',
  {
    subscriptionId: text('subscription_id').notNull(),
    // The hour the attempts started in (date_bin on whole UTC hours, as minuteOf bins minutes).
    hour: timestamp('hour', { withTimezone: true }).notNull(),
    ...attemptCounts(),
  },
  (t) => [
    // A subscription's hours over a window; retention deletes by hour (a few thousand rows a week: no index of its own).
    primaryKey({ columns: [t.subscriptionId, t.hour] }),
  ],
);

// Every subscription's attempts per minute (migration 0018), kept by the rollup pass's statement with the minutes: the
// overview's per-minute line. Read from webhook_attempt_minutes it summed every subscription's minutes of the day
// (20 subscriptions: 16,801 rows, 1,000 subscriptions: 1.4 M); here it reads at most 1,440 rows whatever their number.
export const webhookAttemptMinuteTotals = pgTable('webhook_attempt_minute_totals', {
  minute: timestamp('minute', { withTimezone: true }).primaryKey(),
  attempts: integer('attempts').notNull(),
  succeeded: integer('succeeded').notNull(),
  // The largest attempt id counted in the minute, over every subscription: the overview's head (a window starting
  // inside this minute) reads the minute's attempts up to it, without a row per subscription.
  lastAttemptId: text('last_attempt_id').notNull(),
});
