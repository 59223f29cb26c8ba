CREATE TYPE "public"."access_request_status" AS ENUM('unconfirmed', 'new', 'approved', 'rejected');--> statement-breakpoint
CREATE TYPE "public"."mail_status" AS ENUM('queued', 'sent', 'kept', 'failed');--> statement-breakpoint
CREATE TABLE "access_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"company" text NOT NULL,
	"contact_name" text NOT NULL,
	"contact_email" text NOT NULL,
	"website" text,
	"expected_monthly_orders" integer,
	"use_case" text NOT NULL,
	"status" "access_request_status" NOT NULL,
	"confirm_token_hash" text,
	"confirm_expires_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"reason" text,
	"partner_id" text,
	"source_address" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credential_handovers" (
	"id" text PRIMARY KEY NOT NULL,
	"credential_id" text NOT NULL,
	"email" text NOT NULL,
	"token_hash" text NOT NULL,
	"key_sealed" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "go_live_decisions" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"from_status" "go_live_status" NOT NULL,
	"to_status" "go_live_status" NOT NULL,
	"note" text,
	"actor" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mail_messages" (
	"id" text PRIMARY KEY NOT NULL,
	"to_address" text NOT NULL,
	"subject" text NOT NULL,
	"body_sealed" text NOT NULL,
	"kind" text NOT NULL,
	"status" "mail_status" NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"sent_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "partner_request_counts" (
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"day" date NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"invalid" integer DEFAULT 0 NOT NULL,
	"replayed" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "partner_request_counts_partner_id_environment_day_pk" PRIMARY KEY("partner_id","environment","day")
);
--> statement-breakpoint
ALTER TABLE "access_requests" ADD CONSTRAINT "access_requests_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credential_handovers" ADD CONSTRAINT "credential_handovers_credential_id_credentials_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."credentials"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "go_live_decisions" ADD CONSTRAINT "go_live_decisions_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_request_counts" ADD CONSTRAINT "partner_request_counts_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "access_requests_confirm_token_idx" ON "access_requests" USING btree ("confirm_token_hash");--> statement-breakpoint
CREATE INDEX "access_requests_status_idx" ON "access_requests" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "access_requests_address_idx" ON "access_requests" USING btree ("source_address","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "credential_handovers_token_idx" ON "credential_handovers" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "credential_handovers_credential_idx" ON "credential_handovers" USING btree ("credential_id");--> statement-breakpoint
CREATE INDEX "go_live_decisions_partner_idx" ON "go_live_decisions" USING btree ("partner_id","id");--> statement-breakpoint
CREATE INDEX "mail_messages_created_idx" ON "mail_messages" USING btree ("id");