import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import { orders } from '@/db/schema';
import type { Ctx, Environment, OperatorActor } from '../context';
import type { OrderRow } from './present';

export interface OrderFilter {
  id?: string;
  externalId?: string;
  partnerId?: string;
  environment?: Environment;
  status?: string;
}

/** Orders across every partner, for the console: newest first, `limit` rows after the cursor. */
export async function searchOrders({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { filter: OrderFilter; limit: number; after?: string };
}): Promise<OrderRow[]> {
  const f = input.filter;
  const conditions: SQL[] = [];
  if (f.id) conditions.push(eq(orders.id, f.id));
  if (f.externalId) conditions.push(eq(orders.externalId, f.externalId));
  if (f.partnerId) conditions.push(eq(orders.partnerId, f.partnerId));
  if (f.environment) conditions.push(eq(orders.environment, f.environment));
  if (f.status) conditions.push(eq(orders.status, f.status));
  if (input.after) conditions.push(lt(orders.id, input.after));
  return ctx.read
    .select()
    .from(orders)
    .where(and(...conditions))
    .orderBy(desc(orders.id))
    .limit(input.limit);
}
