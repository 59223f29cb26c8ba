import { and, eq } from 'drizzle-orm';
import { orders, type CancellationJson, type CourierJson, type SimulationJson } from '@/db/schema';
import { withTransaction, type Ctx, type Environment } from '../context';
import { ConflictError, NotFoundError } from '../errors';
import { emitEvent } from '../events/emit';
import { unixSeconds, wholeSecond } from '../time';
import { OrderHistoryFullError, roomForMove } from './history-cap';
import { presentOrder, type OrderRow } from './present';
import type { OrderResource } from './schemas';
import { findTransition, PARTNER_CANCELLABLE, TERMINAL, type OrderStatus } from './state-machine';

export interface MoveRequest {
  orderId: string;
  to: OrderStatus;
  /** Partner paths pass their scope: another partner's or environment's order is a 404. */
  scope?: { partnerId: string; environment: Environment };
  /** A partner's own cancel follows the stricter cancel rule (before pickup only). */
  byPartner?: boolean;
  cancellation?: CancellationJson;
  courier?: CourierJson;
}

/** Locks the order row: concurrent moves of one order serialise here, and the loser sees the winner's state. */
export async function lockOrder(ctx: Ctx, orderId: string, scope?: MoveRequest['scope']): Promise<OrderRow> {
  const conditions = [eq(orders.id, orderId)];
  if (scope) conditions.push(eq(orders.partnerId, scope.partnerId), eq(orders.environment, scope.environment));
  const [row] = await ctx.db
    .select()
    .from(orders)
    .where(and(...conditions))
    .for('update');
  if (!row) throw new NotFoundError('order', orderId);
  return row;
}

/** The one way an order changes status: checks the state machine, writes the row, its history entry and its event. */
export async function moveOrder({ ctx, input }: { ctx: Ctx; input: MoveRequest }): Promise<OrderResource> {
  return withTransaction(ctx, async (tx) => {
    const row = await lockOrder(tx, input.orderId, input.scope);
    return applyMove(tx, row, input);
  });
}

/**
 * Applies a move to a row the caller has locked, in the caller's transaction. Every move passes here (partner
 * cancel and simulate, scenario steps, the timeout sweep, operators), so the state machine and the history cap do.
 */
export async function applyMove(
  ctx: Ctx,
  row: OrderRow,
  input: Omit<MoveRequest, 'orderId' | 'scope'> & { simulation?: SimulationJson | null },
): Promise<OrderResource> {
  const from = row.status as OrderStatus;
  if (input.byPartner && input.to === 'cancelled' && !PARTNER_CANCELLABLE.has(from)) {
    const reason = from === 'cancelled' ? 'already_cancelled' : TERMINAL.has(from) ? `order_${from}` : 'courier_has_goods';
    throw new ConflictError(
      'cancel_not_allowed',
      `This order can no longer be cancelled: it is ${from}. Cancellation is possible before pickup only.`,
      { reason },
    );
  }
  const transition = findTransition(from, input.to);
  if (!transition) {
    throw new ConflictError('invalid_state_transition', `An order cannot move from ${from} to ${input.to}.`, { from, to: input.to });
  }
  if (!roomForMove(row.statusHistory.length, input.to)) throw new OrderHistoryFullError(row.statusHistory.length);
  // The order shows whole seconds; its event keeps the exact moment, which orders it against subscriptions.
  const at = new Date();
  const now = wholeSecond(at);
  const courier = input.to === 'courier_assigned' ? (input.courier ?? robotCourier(row.id)) : input.to === 'created' ? null : row.courier;
  const [updated] = await ctx.db
    .update(orders)
    .set({
      status: input.to,
      statusHistory: [...row.statusHistory, { status: input.to, at: unixSeconds(now) }],
      courier,
      cancellation: input.to === 'cancelled' ? (input.cancellation ?? { reason: 'cancelled', source: 'operator' }) : row.cancellation,
      ...(input.simulation !== undefined ? { simulation: input.simulation } : {}),
      updatedAt: now,
    })
    .where(eq(orders.id, row.id))
    .returning();
  const resource = presentOrder(updated!);
  await emitEvent(ctx, {
    type: transition.event,
    partnerId: row.partnerId,
    environment: row.environment,
    object: resource,
    at,
    previousAttributes: changedAttributes(presentOrder(row), resource),
  });
  return resource;
}

/**
 * The fields a move changed, with their values before it: an event's `data.previous_attributes`
 * (Stripe's pattern). `status_history` is not one of them: it only grows, and the event that stops
 * embedding it says what the move changed instead.
 */
export function changedAttributes(before: OrderResource, after: OrderResource): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof OrderResource)[]) {
    if (key === 'status_history') continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key];
  }
  return changed;
}

/** Dispatch is outside this service; a placeholder courier stands in until a real one is named. */
function robotCourier(orderId: string): CourierJson {
  return { id: `courier_${orderId.slice(-10).toLowerCase()}`, name: 'Robin Courier', phone: '+15555550100', vehicle: 'bicycle' };
}
