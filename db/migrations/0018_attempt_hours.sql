-- The rollup at two more grains (issue 29), kept by the rollup pass's statement with webhook_attempt_minutes
-- (server/history/rollup.ts): per subscription and hour (a 7-day health reads 168 hours, not 10,080 minutes), and per
-- minute for every subscription together (the overview reads 1,440 rows whatever the number of subscriptions). Both
-- are filled below from the minutes already rolled up, so an existing database reads right at once.

CREATE TABLE "webhook_attempt_hours" (
	"subscription_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
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
	CONSTRAINT "webhook_attempt_hours_subscription_id_hour_pk" PRIMARY KEY("subscription_id","hour")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempt_minute_totals" (
	"minute" timestamp with time zone PRIMARY KEY NOT NULL,
	"attempts" integer NOT NULL,
	"succeeded" integer NOT NULL,
	"last_attempt_id" text NOT NULL
);
--> statement-breakpoint
-- The backfill, under the watermark row's lock (what a pass takes first): no pass adds minutes between the two
-- statements, and the lock holds to the end of the migrations' transaction. Rows are written in time order, as the
-- passes append them: written in the aggregate's hash order, the overview's last day of totals lay on every page of
-- the table (1,423 rows on 384 pages at 1,000,000 attempts).
SELECT 1 FROM "webhook_attempt_rollup" FOR UPDATE;
--> statement-breakpoint
-- The minutes summed per hour: counts added, histograms merged bin by bin, the largest id kept (as the pass does it:
-- server/history/rollup.ts hourRowsFrom; test/history/rollup.test.ts runs these statements and compares).
INSERT INTO "webhook_attempt_hours" ("subscription_id", "hour", "attempts", "succeeded", "status_none", "status_2xx",
	"status_3xx", "status_4xx", "status_5xx", "duration_bins", "duration_counts", "last_attempt_id")
SELECT c."subscription_id", c."hour", c."attempts", c."succeeded", c."status_none", c."status_2xx", c."status_3xx",
	c."status_4xx", c."status_5xx", coalesce(h."duration_bins", '{}'), coalesce(h."duration_counts", '{}'), c."last_attempt_id"
FROM (
	SELECT "subscription_id", date_bin('1 hour'::interval, "minute", '2000-01-01T00:00:00Z'::timestamptz) AS "hour",
		sum("attempts")::int AS "attempts", sum("succeeded")::int AS "succeeded", sum("status_none")::int AS "status_none",
		sum("status_2xx")::int AS "status_2xx", sum("status_3xx")::int AS "status_3xx", sum("status_4xx")::int AS "status_4xx",
		sum("status_5xx")::int AS "status_5xx", max("last_attempt_id") AS "last_attempt_id"
	FROM "webhook_attempt_minutes" GROUP BY 1, 2
) c LEFT JOIN (
	SELECT "subscription_id", "hour", array_agg("bin" ORDER BY "bin") AS "duration_bins",
		array_agg("n" ORDER BY "bin")::int[] AS "duration_counts"
	FROM (
		SELECT m."subscription_id", date_bin('1 hour'::interval, m."minute", '2000-01-01T00:00:00Z'::timestamptz) AS "hour",
			u."bin", sum(u."n") AS "n"
		FROM "webhook_attempt_minutes" m, unnest(m."duration_bins", m."duration_counts") AS u("bin", "n")
		GROUP BY 1, 2, 3
	) b GROUP BY 1, 2
) h USING ("subscription_id", "hour")
ORDER BY c."hour", c."subscription_id";
--> statement-breakpoint
INSERT INTO "webhook_attempt_minute_totals" ("minute", "attempts", "succeeded", "last_attempt_id")
SELECT "minute", sum("attempts")::int, sum("succeeded")::int, max("last_attempt_id") FROM "webhook_attempt_minutes"
GROUP BY "minute" ORDER BY "minute";
