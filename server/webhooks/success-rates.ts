import { and, count, eq, gte, inArray, isNull, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries } from '@/db/schema';
import type { Ctx } from '../context';
import { attemptIdFloor } from '../ids';

export interface SuccessRate {
  /** Attempts started in the window (scheduled, manual and replayed alike). */
  attempts: number;
  succeeded: number;
  /** succeeded / attempts; null without attempts. */
  ratio: number | null;
  since: Date;
}

/**
 * How the attempts of each subscription fared over the last `hours`, for several subscriptions in
 * one query. Deliveries are narrowed by last_attempt_at first: a delivery last tried before the
 * window has no attempt in it.
 */
export async function webhookSuccessRates({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { subscriptionIds: readonly string[]; hours: number };
}): Promise<Map<string, SuccessRate>> {
  const since = new Date(Date.now() - input.hours * 3600_000);
  const rows = input.subscriptionIds.length
    ? await ctx.read
        .select({
          subscriptionId: webhookDeliveries.subscriptionId,
          attempts: count(),
          succeeded: sql<number>`(count(*) filter (where ${isNull(webhookAttempts.errorKind)}))::int`,
        })
        .from(webhookDeliveries)
        .innerJoin(webhookAttempts, eq(webhookAttempts.deliveryId, webhookDeliveries.id))
        .where(
          and(
            inArray(webhookDeliveries.subscriptionId, [...input.subscriptionIds]),
            gte(webhookDeliveries.lastAttemptAt, since),
            gte(webhookAttempts.startedAt, since),
            // Prunes the attempt partitions older than the window (ids are made when an attempt is recorded).
            gte(webhookAttempts.id, attemptIdFloor(since)),
          ),
        )
        .groupBy(webhookDeliveries.subscriptionId)
    : [];
  const rates = new Map<string, SuccessRate>(input.subscriptionIds.map((id) => [id, { attempts: 0, succeeded: 0, ratio: null, since }]));
  for (const r of rows)
    rates.set(r.subscriptionId, { attempts: r.attempts, succeeded: r.succeeded, ratio: r.succeeded / r.attempts, since });
  return rates;
}
