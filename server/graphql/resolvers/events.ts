import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { redeliverEventAsOperator } from '@/server/events/redeliver-as-operator';
import { envelopesOf, searchEvents, type EventRow } from '@/server/events/search';
import { deliveriesOfEvents, type DeliveryRow } from '@/server/webhooks/search-deliveries';
import { PageArgs, pageOf, toConnection } from '../connection';
import { loader, type GraphQLContext } from '../context';
import { withoutNulls } from '../filters';
import { Delivery } from '../types/delivery';
import { Event, EventConnection, EventFilter, Redelivery, toEvent } from '../types/event';

@Resolver(() => Event)
export class EventResolver {
  @Authorized()
  @Query(() => EventConnection, { description: 'Events of every partner, newest first.' })
  async events(
    @Ctx() { ctx }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('filter', () => EventFilter, { nullable: true }) filter?: EventFilter | null,
  ): Promise<EventConnection> {
    const { first, after } = pageOf(page);
    const rows = await searchEvents({ ctx, input: { filter: withoutNulls(filter), limit: first + 1, after } });
    return toConnection(rows.map(toEvent), first, (e) => e.id);
  }

  @Authorized()
  @Query(() => Event, { nullable: true })
  async event(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<Event | null> {
    const [row] = await searchEvents({ ctx, input: { filter: { id }, limit: 1 } });
    return row ? toEvent(row) : null;
  }

  @Authorized()
  @FieldResolver(() => String, { description: 'The envelope every delivery sends, as JSON text.' })
  async envelope(@Root() event: Event, @Ctx() context: GraphQLContext): Promise<string> {
    if (event.envelopeText !== undefined) return event.envelopeText;
    const envelopes = loader<string, EventRow['envelope'] | undefined>(context, 'envelopeOfEvent', async (ids) => {
      const found = await envelopesOf({ ctx: context.ctx, input: { eventIds: ids } });
      return ids.map((id) => found.get(id));
    });
    return JSON.stringify((await envelopes.load(event.id)) ?? null);
  }

  @Authorized()
  @FieldResolver(() => [Delivery], { description: 'One per subscription it went to, newest first.' })
  async deliveries(@Root() event: Event, @Ctx() context: GraphQLContext): Promise<Delivery[]> {
    const deliveries = loader<string, DeliveryRow[]>(context, 'deliveriesOfEvent', async (ids) => {
      const found = await deliveriesOfEvents({ ctx: context.ctx, input: { eventIds: ids } });
      return ids.map((id) => found.get(id) ?? []);
    });
    return deliveries.load(event.id);
  }

  @Authorized()
  @Mutation(() => Redelivery, {
    description: 'Sends an event again with its original id: to one subscription, or to every enabled one whose filters accept it.',
  })
  async redeliverEvent(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('eventId', () => ID) eventId: string,
    @Arg('webhookId', () => ID, { nullable: true }) webhookId?: string | null,
  ): Promise<Redelivery> {
    const sent = await redeliverEventAsOperator({ ctx, input: { eventId, webhookId: webhookId ?? undefined } });
    return { eventId: sent.event_id, webhookIds: sent.webhook_ids };
  }
}
