import { and, eq, isNull } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import { actingFor, withTransaction, type Ctx, type OperatorActor } from '../context';
import { NotFoundError } from '../errors';
import { summariseSubscription, type SubscriptionSummary } from './subscription-summary';
import { updateWebhook } from './update';

/**
 * An operator enables or disables any partner's subscription: in that partner's environment, through
 * the verb of PATCH /partner/webhooks/{id}, so both paths change it alike and the audit names the operator.
 */
export async function setSubscriptionStatus({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { id: string; status: 'enabled' | 'disabled' };
}): Promise<SubscriptionSummary> {
  return withTransaction(ctx, async (tx) => {
    const live = and(eq(webhookSubscriptions.id, input.id), isNull(webhookSubscriptions.deletedAt));
    const [owner] = await tx.db
      .select({ partnerId: webhookSubscriptions.partnerId, environment: webhookSubscriptions.environment })
      .from(webhookSubscriptions)
      .where(live);
    if (!owner) throw new NotFoundError('webhook subscription', input.id);
    await updateWebhook({ ctx: actingFor(tx, owner), input: { id: input.id, status: input.status } });
    const [row] = await tx.db.select().from(webhookSubscriptions).where(live);
    return summariseSubscription(row!);
  });
}
