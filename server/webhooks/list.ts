import { and, desc, eq, isNull, lt, type SQL } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import type { TenantCtx } from '../context';
import { presentWebhook } from './present';
import type { WebhookResource } from './schemas';

export async function listWebhooks({ ctx, input }: { ctx: TenantCtx; input: { limit: number; starting_after?: string } }) {
  const conditions: SQL[] = [
    eq(webhookSubscriptions.partnerId, ctx.actor.partnerId),
    eq(webhookSubscriptions.environment, ctx.actor.environment),
    isNull(webhookSubscriptions.deletedAt),
  ];
  if (input.starting_after) conditions.push(lt(webhookSubscriptions.id, input.starting_after));
  const rows = await ctx.db
    .select()
    .from(webhookSubscriptions)
    .where(and(...conditions))
    .orderBy(desc(webhookSubscriptions.id))
    .limit(input.limit + 1);
  const data: WebhookResource[] = rows.slice(0, input.limit).map(presentWebhook);
  return { object: 'list' as const, data, has_more: rows.length > input.limit };
}
