DROP INDEX "sign_in_attempts_email_idx";--> statement-breakpoint
DROP INDEX "sign_in_attempts_address_idx";--> statement-breakpoint
ALTER TABLE "sign_in_attempts" ALTER COLUMN "succeeded" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "operators" ADD COLUMN "disabled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "sign_in_attempts_email_idx" ON "sign_in_attempts" USING btree ("email","at") WHERE "sign_in_attempts"."succeeded" is not true;--> statement-breakpoint
CREATE INDEX "sign_in_attempts_address_idx" ON "sign_in_attempts" USING btree ("address","at") WHERE "sign_in_attempts"."succeeded" is not true;