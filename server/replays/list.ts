import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import type { TenantCtx } from '../context';
import { findSubscription } from '../webhooks/find';
import { presentReplays } from './present';

/** A subscription's replays, newest first. */
export async function listReplays({ ctx, input }: { ctx: TenantCtx; input: { id: string; limit: number; starting_after?: string } }) {
  const sub = await findSubscription(ctx, input.id);
  const conditions: SQL[] = [eq(webhookReplays.subscriptionId, sub.id)];
  if (input.starting_after) conditions.push(lt(webhookReplays.id, input.starting_after));
  const rows = await ctx.db
    .select()
    .from(webhookReplays)
    .where(and(...conditions))
    .orderBy(desc(webhookReplays.id))
    .limit(input.limit + 1);
  return { object: 'list' as const, data: await presentReplays(ctx, rows.slice(0, input.limit)), has_more: rows.length > input.limit };
}
