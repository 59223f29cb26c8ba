import { and, eq, isNull } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { Ctx } from '../context';
import { NotFoundError } from '../errors';
import { summariseSubscription, type SubscriptionSummary } from './subscription-summary';

/** Any partner's live subscription, as operators see it (never a secret). */
export async function getSubscriptionSummary({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<SubscriptionSummary> {
  const s = webhookSubscriptions;
  const [row] = await ctx.db
    .select()
    .from(s)
    .where(and(eq(s.id, input.id), isNull(s.deletedAt)));
  if (!row) throw new NotFoundError('webhook subscription', input.id);
  return summariseSubscription(row);
}
