CREATE TABLE "webhook_notices" (
	"id" text PRIMARY KEY NOT NULL,
	"subscription_id" text NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"streak_since" timestamp with time zone NOT NULL,
	"stage" text NOT NULL,
	"streak" jsonb NOT NULL,
	"mail_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"event_id" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "technical_contacts" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "sandbox_notifications" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "streak_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "last_failure_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "last_error_kind" text;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "last_response_status" integer;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "recovered_from" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "recovered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_notices" ADD CONSTRAINT "webhook_notices_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."webhook_subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_notices" ADD CONSTRAINT "webhook_notices_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_notices_stage_idx" ON "webhook_notices" USING btree ("subscription_id","streak_since","stage");--> statement-breakpoint
CREATE INDEX "webhook_notices_partner_idx" ON "webhook_notices" USING btree ("partner_id","id");--> statement-breakpoint
-- Backfill: a partner approved from an access request gets that request's contact as its first technical
-- contact (server/access/approve.ts does the same from now on). Partners created by an operator start with none.
UPDATE "partners" p SET "technical_contacts" = ARRAY[lower(trim(a.contact_email))]
FROM (
  SELECT DISTINCT ON (partner_id) partner_id, contact_email FROM "access_requests"
  WHERE partner_id IS NOT NULL ORDER BY partner_id, decided_at NULLS LAST, id
) a
WHERE a.partner_id = p.id AND p.technical_contacts = '{}';
