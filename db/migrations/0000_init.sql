CREATE TYPE "public"."go_live_status" AS ENUM('not_requested', 'requested', 'approved', 'rejected');--> statement-breakpoint
CREATE TYPE "public"."environment" AS ENUM('sandbox', 'production');--> statement-breakpoint
CREATE TYPE "public"."idempotency_state" AS ENUM('in_progress', 'completed');--> statement-breakpoint
CREATE TYPE "public"."operator_role" AS ENUM('admin', 'support');--> statement-breakpoint
CREATE TABLE "partners" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"go_live_status" "go_live_status" DEFAULT 'not_requested' NOT NULL,
	"rate_limit_per_second" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"key_hash" text NOT NULL,
	"key_last4" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "allowlist_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"cidr" text NOT NULL,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quotes" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"pickup_lat" double precision NOT NULL,
	"pickup_lng" double precision NOT NULL,
	"dropoff_lat" double precision NOT NULL,
	"dropoff_lng" double precision NOT NULL,
	"distance_meters" integer NOT NULL,
	"fee_amount" integer NOT NULL,
	"fee_currency" text NOT NULL,
	"duration_seconds" integer NOT NULL,
	"pickup_eta" timestamp with time zone NOT NULL,
	"dropoff_eta" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" "idempotency_state" NOT NULL,
	"response_status" integer,
	"response_body" text,
	"response_headers" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_partner_id_environment_key_pk" PRIMARY KEY("partner_id","environment","key")
);
--> statement-breakpoint
CREATE TABLE "rate_limit_buckets" (
	"client_id" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"last_grant" double precision DEFAULT 0 NOT NULL,
	"refilled_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "operators" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" "operator_role" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" text PRIMARY KEY NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "allowlist_entries" ADD CONSTRAINT "allowlist_entries_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quotes" ADD CONSTRAINT "quotes_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credentials_key_hash_idx" ON "credentials" USING btree ("key_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "credentials_client_id_idx" ON "credentials" USING btree ("client_id");--> statement-breakpoint
CREATE INDEX "credentials_partner_idx" ON "credentials" USING btree ("partner_id");--> statement-breakpoint
CREATE UNIQUE INDEX "allowlist_partner_cidr_idx" ON "allowlist_entries" USING btree ("partner_id","cidr");--> statement-breakpoint
CREATE INDEX "quotes_partner_env_idx" ON "quotes" USING btree ("partner_id","environment","id");--> statement-breakpoint
CREATE UNIQUE INDEX "operators_email_idx" ON "operators" USING btree ("email");--> statement-breakpoint
CREATE INDEX "audit_log_target_idx" ON "audit_log" USING btree ("target_type","target_id");