import { and, desc, eq, inArray, lt, type SQL } from 'drizzle-orm';
import { mailMessages, webhookDeliveries, webhookNotices, type NoticeStreak } from '@/db/schema';
import type { Ctx, Environment } from '../context';
import type { NoticeStage } from './stages';

export interface NoticeSend {
  channel: 'email' | 'event';
  /** The address mailed, or the subscription the event was delivered to (null: no subscription asked for it). */
  to: string | null;
  /** email: queued, sent, kept (the local outbox), failed; event: the delivery's status, or none. */
  status: string;
  /** When it went: the mail sent (or kept), the delivery's last attempt; else when it was queued. */
  at: Date;
}

export interface NoticeRecord {
  id: string;
  subscriptionId: string;
  partnerId: string;
  environment: Environment;
  stage: NoticeStage;
  streakSince: Date;
  streak: NoticeStreak;
  createdAt: Date;
  eventId: string | null;
  sends: NoticeSend[];
}

export const MAX_NOTICES = 100;

/**
 * The failure notices of a subscription or a partner, newest first (keyset on the id), each with what
 * went out: every mail with its status, and the event with each delivery the fan-out made of it.
 * Three statements whatever the page's size.
 */
export async function listNotices({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { subscriptionId?: string; partnerId?: string; limit?: number; after?: string };
}): Promise<NoticeRecord[]> {
  const n = webhookNotices;
  const where: SQL[] = [];
  if (input.subscriptionId) where.push(eq(n.subscriptionId, input.subscriptionId));
  if (input.partnerId) where.push(eq(n.partnerId, input.partnerId));
  if (input.after) where.push(lt(n.id, input.after));
  const rows = await ctx.db
    .select()
    .from(n)
    .where(and(...where))
    .orderBy(desc(n.id))
    .limit(Math.min(Math.max(input.limit ?? 50, 1), MAX_NOTICES));
  const mailIds = rows.flatMap((r) => r.mailIds);
  const eventIds = rows.flatMap((r) => (r.eventId ? [r.eventId] : []));
  const mails = mailIds.length
    ? await ctx.db
        .select({
          id: mailMessages.id,
          to: mailMessages.toAddress,
          status: mailMessages.status,
          createdAt: mailMessages.createdAt,
          sentAt: mailMessages.sentAt,
        })
        .from(mailMessages)
        .where(inArray(mailMessages.id, mailIds))
    : [];
  const deliveries = eventIds.length
    ? await ctx.db
        .select({
          eventId: webhookDeliveries.eventId,
          subscriptionId: webhookDeliveries.subscriptionId,
          status: webhookDeliveries.status,
          createdAt: webhookDeliveries.createdAt,
          lastAttemptAt: webhookDeliveries.lastAttemptAt,
        })
        .from(webhookDeliveries)
        .where(inArray(webhookDeliveries.eventId, eventIds))
    : [];
  const mailById = new Map(mails.map((m) => [m.id, m]));
  return rows.map((r) => {
    const sent: NoticeSend[] = r.mailIds.flatMap((id) => {
      const m = mailById.get(id);
      return m ? [{ channel: 'email' as const, to: m.to, status: m.status, at: m.sentAt ?? m.createdAt }] : [];
    });
    const delivered = deliveries.filter((d) => d.eventId === r.eventId);
    if (r.eventId && delivered.length === 0) sent.push({ channel: 'event', to: null, status: 'none', at: r.createdAt });
    for (const d of delivered) sent.push({ channel: 'event', to: d.subscriptionId, status: d.status, at: d.lastAttemptAt ?? d.createdAt });
    return {
      id: r.id,
      subscriptionId: r.subscriptionId,
      partnerId: r.partnerId,
      environment: r.environment,
      stage: r.stage as NoticeStage,
      streakSince: r.streakSince,
      streak: r.streak,
      createdAt: r.createdAt,
      eventId: r.eventId,
      sends: sent,
    };
  });
}
