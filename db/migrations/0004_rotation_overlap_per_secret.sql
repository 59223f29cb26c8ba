ALTER TABLE "webhook_subscriptions" ADD COLUMN "previous_secrets" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- A rotation's overlap in progress carries over: the one previous secret becomes the first of the list.
UPDATE "webhook_subscriptions" SET "previous_secrets" = jsonb_build_array(jsonb_build_object('sealed', "previous_secret_sealed", 'expires_at', to_char("previous_secret_expires_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) WHERE "previous_secret_sealed" IS NOT NULL AND "previous_secret_expires_at" > now();
