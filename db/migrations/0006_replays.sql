CREATE TYPE "public"."webhook_replay_mode" AS ENUM('all', 'failed', 'missing');--> statement-breakpoint
CREATE TYPE "public"."webhook_replay_status" AS ENUM('queued', 'running', 'completed', 'cancelled', 'failed');--> statement-breakpoint
CREATE TABLE "webhook_replays" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"subscription_id" text NOT NULL,
	"status" "webhook_replay_status" NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"until" timestamp with time zone NOT NULL,
	"event_types" jsonb,
	"only" "webhook_replay_mode" NOT NULL,
	"events_matched" integer NOT NULL,
	"events_enqueued" integer DEFAULT 0 NOT NULL,
	"cursor" text,
	"job_step" integer DEFAULT 0 NOT NULL,
	"requested_by" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "replay_id" text;--> statement-breakpoint
ALTER TABLE "webhook_replays" ADD CONSTRAINT "webhook_replays_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_replays" ADD CONSTRAINT "webhook_replays_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."webhook_subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_replays_active_idx" ON "webhook_replays" USING btree ("subscription_id") WHERE "webhook_replays"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "webhook_replays_subscription_idx" ON "webhook_replays" USING btree ("subscription_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_replay_idx" ON "webhook_deliveries" USING btree ("replay_id","status") WHERE "webhook_deliveries"."replay_id" is not null;