import { and, eq } from 'drizzle-orm';
import { orders } from '@/db/schema';
import type { TenantCtx } from '../context';
import { NotFoundError } from '../errors';
import { presentOrder } from './present';
import type { OrderResource } from './schemas';

export async function getOrder({ ctx, input }: { ctx: TenantCtx; input: { id: string } }): Promise<OrderResource> {
  const [row] = await ctx.db
    .select()
    .from(orders)
    .where(and(eq(orders.id, input.id), eq(orders.partnerId, ctx.actor.partnerId), eq(orders.environment, ctx.actor.environment)));
  if (!row) throw new NotFoundError('order', input.id);
  return presentOrder(row);
}
