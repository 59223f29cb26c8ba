import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { eventPagesOfObjects, type EventSummary } from '@/server/events/search';
import { advanceOrderAsOperator } from '@/server/orders/advance-as-operator';
import { STATUS_HISTORY_CAP } from '@/server/orders/history-cap';
import type { OrderRow } from '@/server/orders/present';
import { scenarioRunning } from '@/server/orders/scenarios';
import { searchOrders } from '@/server/orders/search';
import type { OrderStatus } from '@/server/orders/state-machine';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import { loader, type GraphQLContext } from '../context';
import { withoutNulls } from '../filters';
import { EventConnection, toEvent } from '../types/event';
import { Order, OrderFilter, ORDER_STATUS } from '../types/order';

@ObjectType('OrderConnection')
class OrderConnection extends connectionOf(Order, 'Order') {}

function toOrder(row: OrderRow): Order {
  return {
    id: row.id,
    partnerId: row.partnerId,
    environment: row.environment,
    status: row.status as OrderStatus,
    externalId: row.externalId,
    feeAmount: row.feeAmount,
    feeCurrency: row.feeCurrency,
    // As the partner API shows it: the latest entries (only an order grown before the cap holds more).
    statusHistory: row.statusHistory
      .slice(-STATUS_HISTORY_CAP)
      .map((h) => ({ status: h.status as OrderStatus, at: new Date(h.at * 1000) })),
    scenarioStepSeconds: scenarioRunning(row.simulation) ? row.simulation!.step_seconds : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

@Resolver(() => Order)
export class OrderResolver {
  @Authorized()
  @Query(() => OrderConnection, { description: 'Orders of every partner, newest first.' })
  async orders(
    @Ctx() { ctx }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('filter', () => OrderFilter, { nullable: true }) filter?: OrderFilter | null,
  ): Promise<OrderConnection> {
    const { first, after } = pageOf(page);
    const rows = await searchOrders({ ctx, input: { filter: withoutNulls(filter), limit: first + 1, after } });
    return toConnection(rows.map(toOrder), first, (o) => o.id);
  }

  @Authorized()
  @Query(() => Order, { nullable: true })
  async order(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<Order | null> {
    const [row] = await searchOrders({ ctx, input: { filter: { id }, limit: 1 } });
    return row ? toOrder(row) : null;
  }

  @Authorized()
  @FieldResolver(() => EventConnection, { description: 'A page of its events, newest first, without their envelopes unless asked.' })
  async events(@Root() order: Order, @Ctx() context: GraphQLContext, @Args(() => PageArgs) page: PageArgs): Promise<EventConnection> {
    const { first, after } = pageOf(page);
    // One loader per page asked for: a page of orders with their first events is one statement.
    const events = loader<string, EventSummary[]>(context, `eventsOfOrder:${first}:${after ?? ''}`, async (ids) => {
      const found = await eventPagesOfObjects({ ctx: context.ctx, input: { objectIds: ids, limit: first + 1, after } });
      return ids.map((id) => found.get(id) ?? []);
    });
    return toConnection((await events.load(order.id)).map(toEvent), first, (e) => e.id);
  }

  @Authorized('admin')
  @Mutation(() => Order, {
    description: 'Moves an order along its state machine (dispatch is outside this service) and emits its event. Admin only.',
  })
  async advanceOrder(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('orderId', () => ID) orderId: string,
    @Arg('to', () => ORDER_STATUS) to: OrderStatus,
    @Arg('reason', () => String, { nullable: true, description: 'For a cancellation.' }) reason?: string | null,
  ): Promise<Order> {
    return toOrder(await advanceOrderAsOperator({ ctx, input: { orderId, status: to, reason: reason ?? undefined } }));
  }
}
