import type { TenantCtx } from '../context';
import { moveOrder } from './move';
import type { OrderResource } from './schemas';

export async function cancelOrder({ ctx, input }: { ctx: TenantCtx; input: { id: string; reason?: string } }): Promise<OrderResource> {
  return moveOrder({
    ctx,
    input: {
      orderId: input.id,
      to: 'cancelled',
      scope: { partnerId: ctx.actor.partnerId, environment: ctx.actor.environment },
      byPartner: true,
      cancellation: { reason: input.reason ?? 'requested_by_partner', source: 'partner' },
    },
  });
}
