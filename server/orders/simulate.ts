import { ulidString } from '../common-schemas';
import { withTransaction, type TenantCtx } from '../context';
import { ConflictError, ForbiddenError, NotFoundError } from '../errors';
import { applyMove, lockOrder } from './move';
import { COURIER_CANCELLATION } from './scenarios';
import type { OrderResource } from './schemas';
import { nextHappyStep, type OrderStatus } from './state-machine';

/** Sandbox only: moves an order one step, to `status` or along the happy path, like a courier would. */
export async function simulateOrder({
  ctx,
  input,
}: {
  ctx: TenantCtx;
  input: { id: string; status?: OrderStatus };
}): Promise<OrderResource> {
  if (ctx.actor.environment !== 'sandbox') {
    throw new ForbiddenError('sandbox_only', 'Simulation is available with sandbox credentials only.');
  }
  // Order ids are ULIDs: anything else names no order (and a NUL byte would make Postgres answer an error).
  if (!ulidString.safeParse(input.id).success) throw new NotFoundError('order', input.id);
  return withTransaction(ctx, async (tx) => {
    const row = await lockOrder(tx, input.id, { partnerId: ctx.actor.partnerId, environment: ctx.actor.environment });
    const to = input.status ?? nextHappyStep(row.status as OrderStatus);
    if (!to)
      throw new ConflictError('invalid_state_transition', `The order is ${row.status}: there is no next happy-path step.`, {
        from: row.status,
      });
    return applyMove(tx, row, { to, cancellation: to === 'cancelled' ? COURIER_CANCELLATION : undefined });
  });
}
