ALTER TABLE "webhook_subscriptions" DROP COLUMN "previous_secret_sealed";--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" DROP COLUMN "previous_secret_expires_at";