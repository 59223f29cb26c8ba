import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';
import { presentReplays, requesterOfReplay, type ReplayRow } from './present';
import type { ReplayResource } from './schemas';

export interface ReplayFilter {
  id?: string;
  partnerId?: string;
  subscriptionId?: string;
  status?: ReplayRow['status'];
}

export type ReplayProgress = ReplayResource & { partner_id: string; environment: ReplayRow['environment']; requested_by: string };

/** Replays across every partner with their progress (deliveries counted now), newest first. */
export async function searchReplays({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { filter: ReplayFilter; limit: number; after?: string };
}): Promise<ReplayProgress[]> {
  const f = input.filter;
  const conditions: SQL[] = [];
  if (f.id) conditions.push(eq(webhookReplays.id, f.id));
  if (f.partnerId) conditions.push(eq(webhookReplays.partnerId, f.partnerId));
  if (f.subscriptionId) conditions.push(eq(webhookReplays.subscriptionId, f.subscriptionId));
  if (f.status) conditions.push(eq(webhookReplays.status, f.status));
  if (input.after) conditions.push(lt(webhookReplays.id, input.after));
  const rows = await ctx.db
    .select()
    .from(webhookReplays)
    .where(and(...conditions))
    .orderBy(desc(webhookReplays.id))
    .limit(input.limit);
  const presented = await presentReplays(ctx, rows);
  return presented.map((resource, i) => ({
    ...resource,
    partner_id: rows[i]!.partnerId,
    environment: rows[i]!.environment,
    requested_by: requesterOfReplay(rows[i]!.requestedBy),
  }));
}
