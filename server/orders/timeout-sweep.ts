import { and, eq, lt, notInArray } from 'drizzle-orm';
import { orders } from '@/db/schema';
import type { Ctx } from '../context';
import { ConflictError } from '../errors';
import { moveOrder } from './move';
import { TERMINAL } from './state-machine';

/** Cancels sandbox orders still open after SANDBOX_ORDER_TIMEOUT_SECONDS (reason sandbox_timeout). */
export async function cancelStaleSandboxOrders({ ctx }: { ctx: Ctx }): Promise<number> {
  const cutoff = new Date(Date.now() - ctx.env.SANDBOX_ORDER_TIMEOUT_SECONDS * 1000);
  const stale = await ctx.db
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.environment, 'sandbox'), notInArray(orders.status, [...TERMINAL]), lt(orders.createdAt, cutoff)))
    .limit(500);
  let cancelled = 0;
  for (const { id } of stale) {
    try {
      await moveOrder({ ctx, input: { orderId: id, to: 'cancelled', cancellation: { reason: 'sandbox_timeout', source: 'system' } } });
      cancelled++;
    } catch (e) {
      // Finished meanwhile (delivered, cancelled by the partner): nothing to time out.
      if (!(e instanceof ConflictError)) throw e;
    }
  }
  return cancelled;
}
