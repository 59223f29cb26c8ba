import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Worker processes announce themselves every few seconds: the live count divides cluster-wide
// limits (WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION) between them. Rows of dead workers age out.
export const workerHeartbeats = pgTable('worker_heartbeats', {
  id: text('id').primaryKey(),
  beatAt: timestamp('beat_at', { withTimezone: true }).notNull(),
});
