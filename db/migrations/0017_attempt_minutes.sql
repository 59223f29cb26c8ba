-- Per-minute rollups of webhook_attempts for the console's aggregates (issue 29): server/history/rollup.ts fills
-- webhook_attempt_minutes from the attempts below a watermark (webhook_attempt_rollup, one row) and moves the
-- watermark in the same transaction. An existing database starts at the empty watermark: the maintenance job's first
-- passes count its whole history (10,000,000 attempts: see README, History), and until then the queries read the
-- attempts not yet counted from webhook_attempts, as they did before.

CREATE TABLE "webhook_attempt_minutes" (
	"subscription_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"attempts" integer NOT NULL,
	"succeeded" integer NOT NULL,
	"status_none" integer NOT NULL,
	"status_2xx" integer NOT NULL,
	"status_3xx" integer NOT NULL,
	"status_4xx" integer NOT NULL,
	"status_5xx" integer NOT NULL,
	"duration_bins" smallint[] NOT NULL,
	"duration_counts" integer[] NOT NULL,
	"last_attempt_id" text NOT NULL,
	CONSTRAINT "webhook_attempt_minutes_subscription_id_minute_pk" PRIMARY KEY("subscription_id","minute")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempt_rollup" (
	"only" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"attempt_id" text NOT NULL,
	"rolled_up_at" timestamp with time zone,
	CONSTRAINT "webhook_attempt_rollup_one_row" CHECK ("webhook_attempt_rollup"."only")
);
--> statement-breakpoint
-- INCLUDE (written by hand: drizzle-kit has no INCLUDE): the overview sums every subscription's minutes of a day from
-- the index alone once autovacuum has marked their pages all-visible, without fetching the rows and their histograms.
CREATE INDEX "webhook_attempt_minutes_minute_idx" ON "webhook_attempt_minutes" USING btree ("minute") INCLUDE ("attempts", "succeeded");
--> statement-breakpoint
INSERT INTO "webhook_attempt_rollup" ("only", "attempt_id") VALUES (true, '');
--> statement-breakpoint
-- server/history/duration-histogram.ts durationBin() in SQL: 0 for 0 ms, else 1 + floor(8 log2(ms)), the bins spaced by
-- 2^(1/8). The epsilon puts an exact power (1, 2, 4 ms...) in its own bin despite the float's rounding.
CREATE FUNCTION "pdp_duration_bin"("ms" integer) RETURNS smallint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT CASE WHEN "ms" < 1 THEN 0 ELSE 1 + floor(8 * ln("ms"::float8) / ln(2::float8) + 1e-9) END::smallint
$$;