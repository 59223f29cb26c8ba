import { and, eq, isNull } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { TenantCtx } from '../context';
import { NotFoundError } from '../errors';
import type { SubscriptionRow } from './present';

/** A live subscription of the caller's partner and environment; anything else is a 404. */
export async function findSubscription(ctx: TenantCtx, id: string, forUpdate = false): Promise<SubscriptionRow> {
  const query = ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(
      and(
        eq(webhookSubscriptions.id, id),
        eq(webhookSubscriptions.partnerId, ctx.actor.partnerId),
        eq(webhookSubscriptions.environment, ctx.actor.environment),
        isNull(webhookSubscriptions.deletedAt),
      ),
    );
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw new NotFoundError('webhook subscription', id);
  return row;
}
