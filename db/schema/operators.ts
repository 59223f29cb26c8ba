import { pgEnum, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const operatorRole = pgEnum('operator_role', ['admin', 'support']);

export const operators = pgTable(
  'operators',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    // scrypt: "scrypt$<N>$<salt b64>$<hash b64>"
    passwordHash: text('password_hash').notNull(),
    role: operatorRole('role').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    // Set: the operator cannot sign in and has no live session (server/operators/disable.ts); the row
    // stays, so the audit log still names who did what.
    disabledAt: timestamp('disabled_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('operators_email_idx').on(t.email)],
);
