import { and, desc, eq, gte, lt, lte, type SQL } from 'drizzle-orm';
import { orders } from '@/db/schema';
import type { TenantCtx } from '../context';
import { presentOrder } from './present';
import type { ListOrdersQuery, OrderResource } from './schemas';

export async function listOrders({ ctx, input }: { ctx: TenantCtx; input: ListOrdersQuery }) {
  const conditions: SQL[] = [eq(orders.partnerId, ctx.actor.partnerId), eq(orders.environment, ctx.actor.environment)];
  if (input.status) conditions.push(eq(orders.status, input.status));
  if (input.external_id) conditions.push(eq(orders.externalId, input.external_id));
  if (input.created_gte !== undefined) conditions.push(gte(orders.createdAt, new Date(input.created_gte * 1000)));
  if (input.created_lte !== undefined) conditions.push(lte(orders.createdAt, new Date(input.created_lte * 1000)));
  // The cursor is only ever compared, never looked up: a cursor from another partner reveals nothing.
  if (input.starting_after) conditions.push(lt(orders.id, input.starting_after));
  // The replica when there is one: a page may lag by DATABASE_READ_MAX_LAG_SECONDS; GET /partner/orders/{id} reads the primary.
  const rows = await ctx.read
    .select()
    .from(orders)
    .where(and(...conditions))
    .orderBy(desc(orders.id))
    .limit(input.limit + 1);
  const data: OrderResource[] = rows.slice(0, input.limit).map(presentOrder);
  return { object: 'list' as const, data, has_more: rows.length > input.limit };
}
