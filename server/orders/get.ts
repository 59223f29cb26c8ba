import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { orders } from '@/db/schema';
import type { TenantCtx } from '../context';
import { NotFoundError } from '../errors';
import { presentOrder } from './present';
import type { OrderResource } from './schemas';

export async function getOrder({ ctx, input }: { ctx: TenantCtx; input: { id: string } }): Promise<OrderResource> {
  const [row] = await selectOrder(ctx.db).execute({ id: input.id, partnerId: ctx.actor.partnerId, environment: ctx.actor.environment });
  if (!row) throw new NotFoundError('order', input.id);
  return presentOrder(row);
}

// The partner API's hottest read, built once per database handle (as the quote insert, quotes/create.ts): built
// with Drizzle on every request, Drizzle's own frames took 466 us of the 1,646 us of main-thread time an order
// read took under the profiler (`npm run bench -- quotes --profile`, on a machine at load ~9).
const statements = new WeakMap<Executor, ReturnType<typeof prepareSelect>>();

function prepareSelect(db: Executor) {
  return db
    .select()
    .from(orders)
    .where(
      and(
        eq(orders.id, sql.placeholder('id')),
        eq(orders.partnerId, sql.placeholder('partnerId')),
        eq(orders.environment, sql.placeholder('environment')),
      ),
    )
    .prepare('select_order');
}

function selectOrder(db: Executor) {
  let statement = statements.get(db);
  if (!statement) statements.set(db, (statement = prepareSelect(db)));
  return statement;
}
