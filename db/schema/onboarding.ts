import { date, index, integer, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { credentials, environment } from './credentials';
import { goLiveStatus, partners } from './partners';

// Onboarding (issue 16): mail, credential hand-over links, access requests, the go-live review's history
// and the per-partner request counts its checklist reads.

// kept: no SMTP_URL, so the message stays in the local outbox the console shows.
export const mailStatus = pgEnum('mail_status', ['queued', 'sent', 'kept', 'failed']);

// Every message the service sends. The body is sealed (AES-GCM, the webhook secrets' key): it may carry
// a one-time link. With no SMTP_URL the rows are the local outbox the console shows.
export const mailMessages = pgTable(
  'mail_messages',
  {
    id: text('id').primaryKey(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    bodySealed: text('body_sealed').notNull(),
    // What it is about: access_confirm, handover, access_rejected, go_live_rejected...
    kind: text('kind').notNull(),
    status: mailStatus('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (t) => [index('mail_messages_created_idx').on(t.id)],
);

// A one-time link that shows a credential's key once. The key waits here sealed until the link is
// used (then it is erased); only the link token's SHA-256 is stored.
export const credentialHandovers = pgTable(
  'credential_handovers',
  {
    id: text('id').primaryKey(),
    credentialId: text('credential_id')
      .notNull()
      .references(() => credentials.id),
    email: text('email').notNull(),
    tokenHash: text('token_hash').notNull(),
    keySealed: text('key_sealed'),
    createdBy: text('created_by').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    // A newer link for the same credential, or its revocation, ends this one.
    endedAt: timestamp('ended_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('credential_handovers_token_idx').on(t.tokenHash), index('credential_handovers_credential_idx').on(t.credentialId)],
);

export const accessRequestStatus = pgEnum('access_request_status', ['unconfirmed', 'new', 'approved', 'rejected']);

// A company asking for sandbox access from the public page; operators see it once its contact has
// confirmed the address through the e-mailed link.
export const accessRequests = pgTable(
  'access_requests',
  {
    id: text('id').primaryKey(),
    company: text('company').notNull(),
    contactName: text('contact_name').notNull(),
    contactEmail: text('contact_email').notNull(),
    website: text('website'),
    expectedMonthlyOrders: integer('expected_monthly_orders'),
    useCase: text('use_case').notNull(),
    status: accessRequestStatus('status').notNull(),
    confirmTokenHash: text('confirm_token_hash'),
    confirmExpiresAt: timestamp('confirm_expires_at', { withTimezone: true }),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    decidedBy: text('decided_by'),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    reason: text('reason'),
    partnerId: text('partner_id').references(() => partners.id),
    sourceAddress: text('source_address').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    uniqueIndex('access_requests_confirm_token_idx').on(t.confirmTokenHash),
    index('access_requests_status_idx').on(t.status, t.id),
    index('access_requests_address_idx').on(t.sourceAddress, t.createdAt),
  ],
);

// The go-live review's history: every move of partners.go_live_status, who made it and why.
export const goLiveDecisions = pgTable(
  'go_live_decisions',
  {
    id: text('id').primaryKey(),
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    fromStatus: goLiveStatus('from_status').notNull(),
    toStatus: goLiveStatus('to_status').notNull(),
    note: text('note'),
    actor: text('actor').notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
  },
  (t) => [index('go_live_decisions_partner_idx').on(t.partnerId, t.id)],
);

// Partner API requests per partner, environment and day, and how many were refused as invalid (400,
// 404, 409, 415, 422) or answered from a stored Idempotency-Key response: the go-live checklist reads them.
// Counted in memory and added here in batches.
export const partnerRequestCounts = pgTable(
  'partner_request_counts',
  {
    partnerId: text('partner_id')
      .notNull()
      .references(() => partners.id),
    environment: environment('environment').notNull(),
    day: date('day').notNull(),
    requests: integer('requests').notNull().default(0),
    invalid: integer('invalid').notNull().default(0),
    // Answered from a stored response (an Idempotency-Key retry): the checklist's "a retry" item.
    replayed: integer('replayed').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.partnerId, t.environment, t.day] })],
);
