import { recordAudit } from '../audit/record';
import { withTransaction, type Ctx } from '../context';
import { ValidationError } from '../errors';
import { applyMove, lockOrder } from './move';
import type { OrderResource } from './schemas';
import type { OrderStatus } from './state-machine';

/** An operator moves an order (dispatch happens outside this service): admin CLI and console. Audited. */
export async function advanceOrder({
  ctx,
  input,
}: {
  ctx: Ctx;
  input: { orderId: string; status: OrderStatus; reason?: string };
}): Promise<OrderResource> {
  // As long as a partner's own cancel reason may be: it is in every later envelope of the order.
  if (input.reason !== undefined && input.reason.length > 500) {
    throw new ValidationError([{ param: 'reason', code: 'parameter_invalid', message: 'reason must be at most 500 characters.' }]);
  }
  return withTransaction(ctx, async (tx) => {
    const row = await lockOrder(tx, input.orderId);
    const order = await applyMove(tx, row, {
      to: input.status,
      cancellation: input.status === 'cancelled' ? { reason: input.reason ?? 'cancelled_by_operator', source: 'operator' } : undefined,
    });
    await recordAudit(tx, {
      action: 'order.advance',
      targetType: 'order',
      targetId: row.id,
      before: { status: row.status },
      after: { status: order.status },
    });
    return order;
  });
}
