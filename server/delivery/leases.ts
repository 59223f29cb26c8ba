import { sql, type SQL } from 'drizzle-orm';
import { withTransaction, type Ctx } from '../context';
import { enqueueMany } from '../outbox/enqueue';
import { DELIVER } from '../outbox/queues';
import { anyOf, anyOfRaw } from '@/db/lists';

// A worker's claims are leases: it renews those it holds, gives back those it will not send, and any
// worker returns the ones whose holder died. Returning an attempt un-counts it and enqueues a deliver
// job for it in the same transaction, so whichever worker fetches the job claims and sends it again.

// Any constant; only sweepers need to agree on it.
const SWEEP_LOCK = 728_463_105;

/** Extends the claims this worker still holds (in flight or waiting in its memory). */
export async function renewClaims(ctx: Ctx, deliveryIds: readonly string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await ctx.sql`
    update webhook_deliveries set claimed_until = now() + make_interval(secs => ${ctx.env.WEBHOOK_CLAIM_SECONDS})
    where id = ${anyOfRaw(ctx.sql, deliveryIds)} and status = 'pending' and claimed_until is not null`;
}

/** Gives held attempts back unsent (a subscription over its share, a worker stopping). */
export async function releaseClaims(ctx: Ctx, deliveryIds: readonly string[], startAfterSeconds = 0): Promise<number> {
  if (deliveryIds.length === 0) return 0;
  return withTransaction(ctx, (tx) => returnClaims(tx, sql`id = ${anyOf(deliveryIds)}`, startAfterSeconds));
}

/**
 * The sweeper: attempts whose claim lapsed, because the worker holding them died or lost the
 * database for longer than a claim, go back to the queue. One worker at a time does it; another
 * finds the lock taken and leaves.
 */
export async function returnExpiredClaims(ctx: Ctx, limit = 1000): Promise<number> {
  return withTransaction(ctx, async (tx) => {
    const [lock] = await tx.db.execute<{ ok: boolean }>(sql`select pg_try_advisory_xact_lock(${SWEEP_LOCK}) as ok`);
    if (!lock?.ok) return 0;
    return returnClaims(tx, sql`claimed_until < now()`, 0, limit);
  });
}

async function returnClaims(tx: Ctx, where: SQL, startAfterSeconds: number, limit = 100_000): Promise<number> {
  const returned = await tx.db.execute<{ id: string; subscription_id: string; attempts: number }>(sql`
    update webhook_deliveries set claimed_until = null, attempts = attempts - 1, updated_at = now()
    where id in (select id from webhook_deliveries where status = 'pending' and claimed_until is not null and ${where}
                 order by claimed_until limit ${limit} for update skip locked)
    returning id, subscription_id, attempts`);
  await enqueueMany(
    tx,
    DELIVER,
    returned.map((d) => ({ data: { delivery_id: d.id, subscription_id: d.subscription_id, attempt: d.attempts + 1 }, startAfterSeconds })),
  );
  return returned.length;
}
