-- Issue 24: the console's "find by id" (server/lookup/find-by-id.ts). An external id arrives without its
-- partner, and the unique (partner_id, environment, external_id) index cannot serve that (no skip scan before
-- Postgres 18): orders_external_id_lookup_idx. A request id finds the order it created: orders.request_id and
-- its index. request_failures keeps the failed partner requests a request id of an error body names.
-- Migrations run in one transaction, so the two index builds hold writes to orders while they run.
CREATE TABLE "request_failures" (
	"request_id" text PRIMARY KEY NOT NULL,
	"partner_id" text NOT NULL,
	"environment" "environment" NOT NULL,
	"client_id" text NOT NULL,
	"method" text NOT NULL,
	"path" text NOT NULL,
	"status" integer NOT NULL,
	"code" text NOT NULL,
	"message" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "request_id" text;--> statement-breakpoint
CREATE INDEX "orders_external_id_lookup_idx" ON "orders" USING btree ("external_id") WHERE "orders"."external_id" is not null;--> statement-breakpoint
CREATE INDEX "orders_request_id_idx" ON "orders" USING btree ("request_id") WHERE "orders"."request_id" is not null;