import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import type { Ctx, OperatorActor } from '../context';
import { NotFoundError } from '../errors';
import { presentWith, requesterOfReplay, type ReplayRow } from './present';
import { NO_DELIVERIES, replayDeliveries, replayPhase, type ReplayPhase } from './progress';
import type { ReplayResource } from './schemas';

export interface ReplayFilter {
  id?: string;
  partnerId?: string;
  subscriptionId?: string;
  status?: ReplayRow['status'];
}

export type ReplayProgress = ReplayResource & {
  partner_id: string;
  environment: ReplayRow['environment'];
  requested_by: string;
  phase: ReplayPhase;
  /** Of the pending deliveries, those waiting for a retry scheduled later, and when the first is due. */
  events_retrying: number;
  next_retry_at: Date | null;
};

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
  const counts = await replayDeliveries(
    ctx,
    rows.map((r) => r.id),
  );
  return rows.map((row) => {
    const d = counts.get(row.id) ?? NO_DELIVERIES;
    return {
      ...presentWith(row, d),
      partner_id: row.partnerId,
      environment: row.environment,
      requested_by: requesterOfReplay(row.requestedBy),
      phase: replayPhase(row.status, d),
      events_retrying: d.retrying,
      next_retry_at: d.nextRetryAt,
    };
  });
}

/** One replay as searchReplays shows it (after a verb changed it). */
export async function replayProgress(ctx: Ctx<OperatorActor>, id: string): Promise<ReplayProgress> {
  const [found] = await searchReplays({ ctx, input: { filter: { id }, limit: 1 } });
  if (!found) throw new NotFoundError('replay', id);
  return found;
}
