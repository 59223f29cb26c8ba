import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Worker processes announce themselves every few seconds: the live count divides cluster-wide
// limits (a subscription's in-flight limit, server/delivery/in-flight-limit.ts) between them. Rows of dead workers age out.
export const workerHeartbeats = pgTable('worker_heartbeats', {
  id: text('id').primaryKey(),
  beatAt: timestamp('beat_at', { withTimezone: true }).notNull(),
});
