CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"status" text NOT NULL,
	"quote_id" text NOT NULL,
	"external_id" text,
	"pickup" jsonb NOT NULL,
	"dropoff" jsonb NOT NULL,
	"fee_amount" integer NOT NULL,
	"fee_currency" text NOT NULL,
	"courier" jsonb,
	"cancellation" jsonb,
	"status_history" jsonb NOT NULL,
	"metadata" jsonb NOT NULL,
	"simulation" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"type" text NOT NULL,
	"object_id" text NOT NULL,
	"envelope" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_quote_id_quotes_id_fk" FOREIGN KEY ("quote_id") REFERENCES "public"."quotes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_quote_idx" ON "orders" USING btree ("quote_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_external_id_idx" ON "orders" USING btree ("partner_id","environment","external_id") WHERE "orders"."external_id" is not null;--> statement-breakpoint
CREATE INDEX "orders_partner_env_id_idx" ON "orders" USING btree ("partner_id","environment","id");--> statement-breakpoint
CREATE INDEX "orders_open_sandbox_idx" ON "orders" USING btree ("created_at") WHERE "orders"."environment" = 'sandbox' and "orders"."status" not in ('delivered', 'returned', 'cancelled');--> statement-breakpoint
CREATE INDEX "events_partner_env_id_idx" ON "events" USING btree ("partner_id","environment","id");--> statement-breakpoint
CREATE INDEX "events_object_idx" ON "events" USING btree ("object_id");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");