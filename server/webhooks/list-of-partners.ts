import { and, desc, inArray, isNull, lt, lte, sql, type SQL } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { Ctx } from '../context';
import { groupByOwner, type OwnedPage } from '../owned-page';
import type { SubscriptionSummary } from './subscription-summary';

/** The live webhook subscriptions of several partners at once (both environments), newest first, up to `limit` each. */
export async function listSubscriptionsOfPartners({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: OwnedPage;
}): Promise<Map<string, SubscriptionSummary[]>> {
  const where: SQL[] = [inArray(webhookSubscriptions.partnerId, [...input.ownerIds]), isNull(webhookSubscriptions.deletedAt)];
  if (input.after) where.push(lt(webhookSubscriptions.id, input.after));
  const ranked = ctx.db
    .select({
      id: webhookSubscriptions.id,
      partnerId: webhookSubscriptions.partnerId,
      environment: webhookSubscriptions.environment,
      url: webhookSubscriptions.url,
      description: webhookSubscriptions.description,
      eventFilters: webhookSubscriptions.eventFilters,
      status: webhookSubscriptions.status,
      disabledReason: webhookSubscriptions.disabledReason,
      failingSince: webhookSubscriptions.failingSince,
      createdAt: webhookSubscriptions.createdAt,
      updatedAt: webhookSubscriptions.updatedAt,
      rank: sql<number>`row_number() over (partition by ${webhookSubscriptions.partnerId} order by ${webhookSubscriptions.id} desc)`.as(
        'rank',
      ),
    })
    .from(webhookSubscriptions)
    .where(and(...where))
    .as('ranked');
  const rows = await ctx.db.select().from(ranked).where(lte(ranked.rank, input.limit)).orderBy(desc(ranked.id));
  return groupByOwner(
    input.ownerIds,
    rows,
    (r) => r.partnerId,
    ({ rank: _rank, ...summary }) => summary,
  );
}
