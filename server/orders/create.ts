import { newId } from '../ids';
import { rawSqlOf } from '@/db/client';
import { withTransaction, type TenantCtx } from '../context';
import { ConflictError, ForbiddenError, NotFoundError, UnprocessableError } from '../errors';
import { emitEvent } from '../events/emit';
import { enqueue } from '../outbox/enqueue';
import { SCENARIO_STEP } from '../outbox/queues';
import { unixSeconds, wholeSecond } from '../time';
import { presentOrder, type OrderRow } from './present';
import type { CreateOrderInput, OrderResource } from './schemas';

/** The quote's columns an order copies, as the database names them. */
interface QuoteToOrder {
  id: string;
  // Text: Drizzle turns postgres.js's date parsing off on its connections.
  used_at: string | null;
  expires_at: string;
  pickup_lat: number;
  pickup_lng: number;
  dropoff_lat: number;
  dropoff_lng: number;
  fee_amount: number;
  fee_currency: string;
}

export async function createOrder({ ctx, input }: { ctx: TenantCtx; input: CreateOrderInput }): Promise<OrderResource> {
  const { partnerId, environment } = ctx.actor;
  if (input.simulation && environment !== 'sandbox') {
    throw new ForbiddenError('sandbox_only', 'Simulation is available with sandbox credentials only.');
  }
  return withTransaction(ctx, async (tx) => {
    // (JSON and times go as text cast to their types: Drizzle turns postgres.js's own serialising of them off on its connections.)
    // Every partner runs this for every delivery, so it costs two round trips inside the transaction:
    // the reads, then every write at once (postgres.js pipelines statements issued together on the
    // transaction's connection), each a prepared statement written out (Drizzle's builder cost more
    // CPU than the statements: `npm run bench -- orders`). Locking the quote serialises two orders
    // racing for it; the unique index on quote_id backs this up.
    const sql = rawSqlOf(tx.db);
    const [[quote], [existing]] = await Promise.all([
      sql<QuoteToOrder[]>`
        select id, used_at, expires_at, pickup_lat, pickup_lng, dropoff_lat, dropoff_lng, fee_amount, fee_currency
        from quotes where id = ${input.quote_id} and partner_id = ${partnerId} and environment = ${environment}
        for update`,
      input.external_id
        ? sql<{ id: string }[]>`
            select id from orders where partner_id = ${partnerId} and environment = ${environment} and external_id = ${input.external_id}`
        : [],
    ]);
    if (!quote) throw new NotFoundError('quote', input.quote_id);
    if (quote.used_at) throw new ConflictError('quote_already_used', 'This quote was already used for an order; request a new quote.');
    // The order shows whole seconds; its event keeps the exact moment, which orders it against subscriptions.
    const at = new Date();
    const now = wholeSecond(at);
    if (new Date(quote.expires_at) <= now)
      throw new UnprocessableError('quote_expired', 'This quote has expired; request a new quote.', 'quote_id');
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
        lat: quote.pickup_lat,
        lng: quote.pickup_lng,
        contact: input.pickup?.contact ?? null,
        instructions: input.pickup?.instructions ?? null,
      },
      dropoff: {
        lat: quote.dropoff_lat,
        lng: quote.dropoff_lng,
        contact: input.dropoff?.contact ?? null,
        instructions: input.dropoff?.instructions ?? null,
      },
      feeAmount: quote.fee_amount,
      feeCurrency: quote.fee_currency,
      courier: null,
      cancellation: null,
      statusHistory: [{ status: 'created', at: unixSeconds(now) }],
      metadata: input.metadata ?? {},
      simulation,
      requestId: ctx.requestId,
      createdAt: now,
      updatedAt: now,
    };
    const resource = presentOrder(row);
    // None of these reads another's result. One failing aborts the transaction: the rest fail too, and it rolls back.
    await Promise.all([
      sql`
        insert into orders (id, partner_id, environment, status, quote_id, external_id, pickup, dropoff, fee_amount, fee_currency,
          status_history, metadata, simulation, request_id, created_at, updated_at)
        values (${row.id}, ${partnerId}, ${environment}, ${row.status}, ${row.quoteId}, ${row.externalId}, ${JSON.stringify(row.pickup)}::jsonb,
          ${JSON.stringify(row.dropoff)}::jsonb, ${row.feeAmount}, ${row.feeCurrency}, ${JSON.stringify(row.statusHistory)}::jsonb, ${JSON.stringify(row.metadata)}::jsonb,
          ${row.simulation && JSON.stringify(row.simulation)}::jsonb, ${row.requestId}, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz)`,
      sql`update quotes set used_at = ${now.toISOString()}::timestamptz where id = ${quote.id}`,
      emitEvent(tx, { type: 'order.created', partnerId, environment, object: resource, at }),
      // No job, no scenario: enqueue fails the whole creation rather than leave an order whose robot never comes.
      simulation ? enqueue(tx, SCENARIO_STEP, { order_id: row.id, step: 0 }, { startAfterSeconds: simulation.step_seconds }) : undefined,
    ]);
    return resource;
  });
}
