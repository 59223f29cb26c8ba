import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

// Every operator action, from the CLI or the console: who, what, when, before and after.
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('audit_log_target_idx').on(t.targetType, t.targetId),
    // The console's audit page: newest first, filtered by who or what.
    index('audit_log_at_idx').on(t.at),
    index('audit_log_actor_idx').on(t.actor, t.at),
  ],
);
