import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { operators } from './operators';

// An operator's signed-in session. The cookie carries a random token; only its SHA-256 is stored,
// so a copy of this table signs nobody in.
export const operatorSessions = pgTable(
  'operator_sessions',
  {
    id: text('id').primaryKey(),
    operatorId: text('operator_id')
      .notNull()
      .references(() => operators.id),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    address: text('address'),
    userAgent: text('user_agent'),
  },
  (t) => [index('operator_sessions_operator_idx').on(t.operatorId, t.id)],
);

// Every sign-in attempt, kept a day: failures per account and address, per address and per account in
// the last minutes bound guessing across every web process (an in-memory count would multiply by the
// number of processes). An attempt is written before its password is checked (succeeded null:
// pending) and counts as a failure until it is marked, so a parallel burst cannot check more guesses
// than the limit (server/sessions/attempts.ts), and one whose process died stays a failure.
export const signInAttempts = pgTable(
  'sign_in_attempts',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    address: text('address').notNull(),
    succeeded: boolean('succeeded'),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Failures and pending attempts only: the throttle counts nothing else.
    index('sign_in_attempts_email_idx')
      .on(t.email, t.at)
      .where(sql`${t.succeeded} is not true`),
    index('sign_in_attempts_address_idx')
      .on(t.address, t.at)
      .where(sql`${t.succeeded} is not true`),
  ],
);
