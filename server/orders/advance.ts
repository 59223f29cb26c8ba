import type { Ctx } from '../context';
import { moveOrder } from './move';
import type { OrderResource } from './schemas';
import type { OrderStatus } from './state-machine';

/** An operator moves an order (dispatch happens outside this service): admin CLI and console. */
export async function advanceOrder({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { orderId: string; status: OrderStatus; reason?: string };
}): Promise<OrderResource> {
  return moveOrder({
    ctx,
    input: {
      orderId: input.orderId,
      to: input.status,
      cancellation: input.status === 'cancelled' ? { reason: input.reason ?? 'cancelled_by_operator', source: 'operator' } : undefined,
    },
  });
}
