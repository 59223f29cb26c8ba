import { and, eq } from 'drizzle-orm';
import { newId } from '../ids';
import { orders, quotes } from '@/db/schema';
import { withTransaction, type TenantCtx } from '../context';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '../errors';
import { emitEvent } from '../events/emit';
import { enqueue } from '../outbox/enqueue';
import { SCENARIO_STEP } from '../outbox/queues';
import { unixSeconds, wholeSecond } from '../time';
import { presentOrder, type OrderRow } from './present';
import type { CreateOrderInput, OrderResource } from './schemas';

export async function createOrder({ ctx, input }: { ctx: TenantCtx; input: CreateOrderInput }): Promise<OrderResource> {
  const { partnerId, environment } = ctx.actor;
  if (input.simulation && environment !== 'sandbox') {
    throw new ForbiddenError('sandbox_only', 'Simulation is available with sandbox credentials only.');
  }
  return withTransaction(ctx, async (tx) => {
    // Every partner runs this for every delivery, so it costs two round trips inside the transaction:
    // the reads, then every write at once (postgres.js pipelines statements issued together on the
    // transaction's connection). Locking the quote serialises two orders racing for it; the unique
    // index on quote_id backs this up.
    const [[quote], [existing]] = await Promise.all([
      tx.db
        .select()
        .from(quotes)
        .where(and(eq(quotes.id, input.quote_id), eq(quotes.partnerId, partnerId), eq(quotes.environment, environment)))
        .for('update'),
      input.external_id
        ? tx.db
            .select({ id: orders.id })
            .from(orders)
            .where(and(eq(orders.partnerId, partnerId), eq(orders.environment, environment), eq(orders.externalId, input.external_id)))
        : [],
    ]);
    if (!quote) throw new NotFoundError('quote', input.quote_id);
    if (quote.usedAt) throw new ConflictError('quote_already_used', 'This quote was already used for an order; request a new quote.');
    // The order shows whole seconds; its event keeps the exact moment, which orders it against subscriptions.
    const at = new Date();
    const now = wholeSecond(at);
    if (quote.expiresAt <= now) throw new UnprocessableError('quote_expired', 'This quote has expired; request a new quote.', 'quote_id');
    if (existing) {
      throw new ConflictError('duplicate_external_id', `An order with external_id '${input.external_id}' already exists: ${existing.id}.`, {
        param: 'external_id',
        existing_order_id: existing.id,
      });
    }
    const simulation = input.simulation
      ? { scenario: input.simulation.scenario, step_seconds: input.simulation.step_seconds, next_step: 0 }
      : null;
    const row: OrderRow = {
      id: newId(),
      partnerId,
      environment,
      status: 'created',
      quoteId: quote.id,
      externalId: input.external_id ?? null,
      pickup: {
        lat: quote.pickupLat,
        lng: quote.pickupLng,
        contact: input.pickup?.contact ?? null,
        instructions: input.pickup?.instructions ?? null,
      },
      dropoff: {
        lat: quote.dropoffLat,
        lng: quote.dropoffLng,
        contact: input.dropoff?.contact ?? null,
        instructions: input.dropoff?.instructions ?? null,
      },
      feeAmount: quote.feeAmount,
      feeCurrency: quote.feeCurrency,
      courier: null,
      cancellation: null,
      statusHistory: [{ status: 'created', at: unixSeconds(now) }],
      metadata: input.metadata ?? {},
      simulation,
      createdAt: now,
      updatedAt: now,
    };
    const resource = presentOrder(row);
    // None of these reads another's result. One failing aborts the transaction: the rest fail too, and it rolls back.
    await Promise.all([
      tx.db.insert(orders).values(row),
      tx.db.update(quotes).set({ usedAt: now }).where(eq(quotes.id, quote.id)),
      emitEvent(tx, { type: 'order.created', partnerId, environment, object: resource, at }),
      // No job, no scenario: enqueue fails the whole creation rather than leave an order whose robot never comes.
      simulation ? enqueue(tx, SCENARIO_STEP, { order_id: row.id, step: 0 }, { startAfterSeconds: simulation.step_seconds }) : undefined,
    ]);
    return resource;
  });
}
