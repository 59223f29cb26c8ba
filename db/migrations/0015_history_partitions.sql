-- History at scale (issue 29): events, webhook_deliveries and webhook_attempts become tables partitioned by RANGE
-- over a time-ordered key, a week a partition, so retention drops whole weeks (DETACH + DROP, server/history/retain.ts)
-- instead of a DELETE over millions of rows. Written by hand (drizzle-kit knows no partitioning); its snapshot
-- describes the tables as the code sees them: the same columns, webhook_deliveries' primary key (id, event_id),
-- and no foreign key between the three.
--
-- Keys: ids are ULIDs (server/ids.ts), so a week's bound is the id floor of its start (Monday 00:00 UTC).
--   events              RANGE (id)
--   webhook_deliveries  RANGE (event_id): with its event's week; the unique (event_id, subscription_id) of fan-out's
--                       ON CONFLICT holds the key, and the primary key becomes (id, event_id)
--   webhook_attempts    RANGE (id): the week it was recorded in
-- Each has a DEFAULT partition for a row no week was made for (the maintenance job makes the current week and two
-- ahead, so only seeded history or a job stopped for weeks puts rows there); making a week moves its rows out.
--
-- The conversion runs in the migrations' one transaction: new tables beside the old, a week for each week from the
-- oldest event's to two ahead, every row copied, the old tables dropped, then indexes and constraints under their
-- old names. Nothing reads or writes meanwhile (the old tables are locked from the first statement).

-- server/ids.ts idFloor() in SQL: the lowest id of a moment (10 Crockford base32 characters of Unix milliseconds, then zeros).
CREATE FUNCTION "pdp_id_floor"("at" timestamptz) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  ms bigint := greatest(0, floor(extract(epoch FROM "at") * 1000))::bigint;
  s text := '';
BEGIN
  FOR i IN 1..10 LOOP
    s := substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', (ms % 32)::int + 1, 1) || s;
    ms := ms / 32;
  END LOOP;
  RETURN s || '0000000000000000';
END $$;
--> statement-breakpoint
-- Makes the week holding "at" a partition of each history table, unless it is one: a table like the parent, the
-- default partition's rows of that week moved into it, then ATTACH (a SHARE UPDATE EXCLUSIVE lock on the parent,
-- so the engine's statements go on; only the default partition, scanned for rows of the week, is locked whole).
-- Answers the partitions it made. Called by the maintenance job (server/history/partitions.ts) and seeders.
CREATE FUNCTION "pdp_history_week"("at" timestamptz) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  week_start timestamptz := date_trunc('week', "at" AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
  lo text := pdp_id_floor(week_start);
  hi text := pdp_id_floor(week_start + interval '7 days');
  t record;
  part text;
BEGIN
  -- Two callers at once (a maintenance run and a seeder) make a week once.
  PERFORM pg_advisory_xact_lock(728463107);
  FOR t IN SELECT * FROM (VALUES
    ('events', 'id', ''),
    -- As 0011_deliveries_vacuum set on the table (a partitioned table takes no storage parameters): every attempt
    -- updates its delivery, and the sweeper's partial index needs vacuums at 3 % dead rows.
    ('webhook_deliveries', 'event_id', ' WITH (autovacuum_vacuum_scale_factor = 0.03, autovacuum_vacuum_threshold = 1000)'),
    ('webhook_attempts', 'id', '')
  ) AS v(tbl, key, opts) LOOP
    part := t.tbl || '_w' || to_char(week_start AT TIME ZONE 'UTC', 'YYYYMMDD');
    CONTINUE WHEN to_regclass(format('public.%I', part)) IS NOT NULL;
    EXECUTE format('CREATE TABLE public.%I (LIKE public.%I INCLUDING DEFAULTS)%s', part, t.tbl, t.opts);
    EXECUTE format('WITH moved AS (DELETE FROM public.%I WHERE %I >= $1 AND %I < $2 RETURNING *) INSERT INTO public.%I SELECT * FROM moved',
      t.tbl || '_default', t.key, t.key, part) USING lo, hi;
    EXECUTE format('ALTER TABLE public.%I ATTACH PARTITION public.%I FOR VALUES FROM (%L) TO (%L)', t.tbl, part, lo, hi);
    RETURN NEXT part;
  END LOOP;
END $$;
--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_events_id_fk";--> statement-breakpoint
ALTER TABLE "events" RENAME TO "events_unpartitioned";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" RENAME TO "webhook_deliveries_unpartitioned";--> statement-breakpoint
ALTER TABLE "webhook_attempts" RENAME TO "webhook_attempts_unpartitioned";--> statement-breakpoint
CREATE TABLE "events" (
	"id" text NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"type" text NOT NULL,
	"object_id" text NOT NULL,
	"envelope" jsonb NOT NULL,
	"previous_attributes" jsonb,
	"created_at" timestamp with time zone NOT NULL
) PARTITION BY RANGE ("id");
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text NOT NULL,
	"event_id" text NOT NULL,
	"subscription_id" text NOT NULL,
	"event_type" text NOT NULL,
	"status" "webhook_delivery_status" NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_until" timestamp with time zone,
	"claimed_by" text,
	"next_attempt_at" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"replay_id" text,
	"api_version" text DEFAULT '2026-11-01' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
) PARTITION BY RANGE ("event_id");
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"trigger" text NOT NULL,
	"requested_by" text,
	"api_version" text DEFAULT '2026-11-01' NOT NULL,
	"resolved_address" text,
	"started_at" timestamp (3) with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"response_status" integer,
	"response_headers" jsonb,
	"response_body" text,
	"error_kind" text,
	"error_message" text
) PARTITION BY RANGE ("id");
--> statement-breakpoint
CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;--> statement-breakpoint
CREATE TABLE "webhook_deliveries_default" PARTITION OF "webhook_deliveries" DEFAULT
  WITH (autovacuum_vacuum_scale_factor = 0.03, autovacuum_vacuum_threshold = 1000);--> statement-breakpoint
CREATE TABLE "webhook_attempts_default" PARTITION OF "webhook_attempts" DEFAULT;--> statement-breakpoint
-- A week for every week from the oldest event's (deliveries and attempts come after their events) to two ahead;
-- a row outside them all (an id that does not match its time) lands in the default partition, never lost.
SELECT count(*) FROM generate_series(
  date_trunc('week', least(now(), (SELECT min("created_at") FROM "events_unpartitioned")) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
  now() + interval '14 days', interval '7 days') AS w, LATERAL pdp_history_week(w);--> statement-breakpoint
INSERT INTO "events" ("id", "partner_id", "environment", "type", "object_id", "envelope", "previous_attributes", "created_at")
  SELECT "id", "partner_id", "environment", "type", "object_id", "envelope", "previous_attributes", "created_at" FROM "events_unpartitioned";--> statement-breakpoint
INSERT INTO "webhook_deliveries" ("id", "event_id", "subscription_id", "event_type", "status", "attempts", "claimed_until", "claimed_by",
    "next_attempt_at", "last_attempt_at", "replay_id", "api_version", "created_at", "updated_at")
  SELECT "id", "event_id", "subscription_id", "event_type", "status", "attempts", "claimed_until", "claimed_by",
    "next_attempt_at", "last_attempt_at", "replay_id", "api_version", "created_at", "updated_at" FROM "webhook_deliveries_unpartitioned";--> statement-breakpoint
INSERT INTO "webhook_attempts" ("id", "delivery_id", "attempt", "trigger", "requested_by", "api_version", "resolved_address", "started_at",
    "duration_ms", "response_status", "response_headers", "response_body", "error_kind", "error_message")
  SELECT "id", "delivery_id", "attempt", "trigger", "requested_by", "api_version", "resolved_address", "started_at",
    "duration_ms", "response_status", "response_headers", "response_body", "error_kind", "error_message" FROM "webhook_attempts_unpartitioned";--> statement-breakpoint
DROP TABLE "webhook_attempts_unpartitioned";--> statement-breakpoint
DROP TABLE "webhook_deliveries_unpartitioned";--> statement-breakpoint
DROP TABLE "events_unpartitioned";--> statement-breakpoint
-- Indexes after the copy (built once per partition, not row by row), under the names the tables had.
ALTER TABLE "events" ADD CONSTRAINT "events_pkey" PRIMARY KEY ("id");--> statement-breakpoint
CREATE INDEX "events_partner_env_id_idx" ON "events" USING btree ("partner_id","environment","id");--> statement-breakpoint
CREATE INDEX "events_object_idx" ON "events" USING btree ("object_id");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_id_event_id_pk" PRIMARY KEY("id","event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_subscription_idx" ON "webhook_deliveries" USING btree ("event_id","subscription_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_subscription_idx" ON "webhook_deliveries" USING btree ("subscription_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_replay_idx" ON "webhook_deliveries" USING btree ("replay_id","status") WHERE "webhook_deliveries"."replay_id" is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" USING btree ("event_id") WHERE "webhook_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_claims_idx" ON "webhook_deliveries" USING btree ("claimed_until") WHERE "webhook_deliveries"."status" = 'pending' and "webhook_deliveries"."claimed_until" is not null;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."webhook_subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_delivery_idx" ON "webhook_attempts" USING btree ("delivery_id","attempt");--> statement-breakpoint
-- Autovacuum analyzes partitions, never a partitioned table: the planner's statistics of the whole (for joins over
-- partitions it cannot prune) come from this and from the maintenance job when it makes or drops a week.
ANALYZE "events", "webhook_deliveries", "webhook_attempts";
