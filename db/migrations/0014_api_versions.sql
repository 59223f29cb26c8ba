CREATE TABLE "api_version_pins" (
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"version" text NOT NULL,
	"previous_version" text,
	"pinned_at" timestamp with time zone NOT NULL,
	"changed_at" timestamp with time zone,
	CONSTRAINT "api_version_pins_partner_id_environment_pk" PRIMARY KEY("partner_id","environment")
);
--> statement-breakpoint
ALTER TABLE "partners" ADD COLUMN "first_pin_version" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "previous_attributes" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "api_version" text DEFAULT '2026-11-01' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "api_version" text DEFAULT '2026-11-01' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD COLUMN "api_version" text DEFAULT '2026-11-01' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_version_pins" ADD CONSTRAINT "api_version_pins_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Versions (issue 25). Every partner that exists now integrated against the API as it was, the first version:
-- each of its environments is pinned to it at its next request (server/pins/pin.ts), not to the latest. The
-- version columns above default to the first version, so subscriptions, deliveries and attempts made before
-- speak it too (a constant default: no table is rewritten).
UPDATE "partners" SET "first_pin_version" = '2026-11-01';
