import { isNull } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { Ctx } from '../context';
import { pagePerOwner, type OwnedPage } from '../owned-page';
import type { SubscriptionSummary } from './subscription-summary';

/** The live webhook subscriptions of several partners at once (both environments), newest first, up to `limit` each. */
export async function listSubscriptionsOfPartners({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: OwnedPage;
}): Promise<Map<string, SubscriptionSummary[]>> {
  const t = webhookSubscriptions;
  const fields = {
    id: t.id,
    partnerId: t.partnerId,
    environment: t.environment,
    url: t.url,
    description: t.description,
    eventFilters: t.eventFilters,
    apiVersion: t.apiVersion,
    status: t.status,
    disabledReason: t.disabledReason,
    failingSince: t.failingSince,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
  return pagePerOwner<SubscriptionSummary>(ctx, { table: t, fields, ownerKey: 'partnerId', where: isNull(t.deletedAt) }, input);
}
