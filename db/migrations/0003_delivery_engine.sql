CREATE TABLE "worker_heartbeats" (
	"id" text PRIMARY KEY NOT NULL,
	"beat_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "webhook_deliveries_claims_idx" ON "webhook_deliveries" USING btree ("claimed_until") WHERE "webhook_deliveries"."status" = 'pending' and "webhook_deliveries"."claimed_until" is not null;