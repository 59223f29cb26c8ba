import { and, asc, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { partners, webhookSubscriptions } from '@/db/schema';
import type { Ctx } from '../context';
import type { SubscriptionRow } from '../webhooks/present';

/** A subscription in a failing streak, or whose streak just ended, with what its partner wants told and what was told. */
export interface Candidate {
  subscription: SubscriptionRow;
  technicalContacts: string[];
  sandboxNotifications: boolean;
  /** The database's clock, which the streaks' ages are read on. */
  now: Date;
  /** Stages already announced for the open streak (failing_since) and for the ended one (recovered_from). */
  sentOpen: string[];
  sentEnded: string[];
}

/**
 * Every live subscription in a streak or with an ended streak not yet dealt with (or the one asked
 * for), in one statement. Subscriptions are few (at most WEBHOOK_MAX_SUBSCRIPTIONS per partner and
 * environment) and those in a streak fewer: the minute's scan reads a small table.
 */
export async function noticeCandidates(ctx: Ctx, subscriptionId?: string): Promise<Candidate[]> {
  const s = webhookSubscriptions;
  const sentFor = (streak: AnyPgColumn) =>
    sql<string[]>`array(select n.stage from webhook_notices n where n.subscription_id = ${s.id} and n.streak_since = ${streak})`;
  return ctx.db
    .select({
      subscription: s,
      technicalContacts: partners.technicalContacts,
      sandboxNotifications: partners.sandboxNotifications,
      now: sql<Date>`now()`.mapWith((v: string | Date) => new Date(v)),
      sentOpen: sentFor(s.failingSince),
      sentEnded: sentFor(s.recoveredFrom),
    })
    .from(s)
    .innerJoin(partners, eq(partners.id, s.partnerId))
    .where(
      and(
        isNull(s.deletedAt),
        or(isNotNull(s.failingSince), isNotNull(s.recoveredFrom)),
        subscriptionId ? eq(s.id, subscriptionId) : undefined,
      ),
    )
    .orderBy(asc(s.id));
}
