import type postgres from 'postgres';
import { rawSqlOf } from '@/db/client';
import type { TenantCtx } from '../context';
import { NotFoundError } from '../errors';
import { extended } from '../objects';
import { presentOrder, type OrderRow } from './present';
import type { OrderResource } from './schemas';

export async function getOrder({ ctx, input }: { ctx: TenantCtx; input: { id: string } }): Promise<OrderResource> {
  const [row] = await selectOrder(rawSqlOf(ctx.db), input.id, ctx.actor.partnerId, ctx.actor.environment);
  if (!row) throw new NotFoundError('order', input.id);
  return presentOrder(extended(row, { createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) }));
}

/**
 * The partner API's hottest read, a prepared postgres.js statement (as the quote insert, quotes/create.ts) whose
 * columns are named as Drizzle's row, so only the times are mapped: postgres.js parses the jsonb columns and hands
 * timestamps over as text (Drizzle's driver turns its date parsers off to map them itself). Built with Drizzle on
 * every request, Drizzle's frames took 466 us of the 1,646 us of main-thread time an order read took under the
 * profiler; as a Drizzle prepared statement, 9.4 of 153 us, with the garbage collector at 11.3 against the
 * baseline's 1.5 (`npm run bench -- quotes --profile`, 2026-11-28). A column added to `orders` is added here too:
 * test/api/orders.test.ts compares this read with what each write answers.
 */
function selectOrder(sql: postgres.Sql, id: string, partnerId: string, environment: OrderRow['environment']) {
  return sql<
    (Omit<OrderRow, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string })[]
  >`select id, partner_id as "partnerId", environment, status, quote_id as "quoteId",
      external_id as "externalId", pickup, dropoff, fee_amount as "feeAmount", fee_currency as "feeCurrency", courier,
      cancellation, status_history as "statusHistory", metadata, simulation, request_id as "requestId",
      created_at as "createdAt", updated_at as "updatedAt"
    from orders where id = ${id} and partner_id = ${partnerId} and environment = ${environment}`;
}
