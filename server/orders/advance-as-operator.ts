import { eq } from 'drizzle-orm';
import { orders } from '@/db/schema';
import { withTransaction, type Ctx, type OperatorActor } from '../context';
import { advanceOrder } from './advance';
import type { OrderRow } from './present';
import type { OrderStatus } from './state-machine';

/** advanceOrder for the console, which shows the stored row (its partner and environment included). */
export async function advanceOrderAsOperator({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { orderId: string; status: OrderStatus; reason?: string };
}): Promise<OrderRow> {
  return withTransaction(ctx, async (tx) => {
    await advanceOrder({ ctx: tx, input });
    const [row] = await tx.db.select().from(orders).where(eq(orders.id, input.orderId));
    return row!;
  });
}
