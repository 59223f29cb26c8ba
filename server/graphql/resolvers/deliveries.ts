import { Arg, Args, Authorized, Ctx, FieldResolver, ID, Int, ObjectType, Query, Resolver, Root } from 'type-graphql';
import { ValidationError } from '@/server/errors';
import { attemptsOf, sentHeaders, type AttemptRow } from '@/server/webhooks/attempts-of';
import { searchDeliveries } from '@/server/webhooks/search-deliveries';
import { connectionOf, PageArgs, pageOf, toConnection } from '../connection';
import { loader, type GraphQLContext } from '../context';
import { withoutNulls } from '../filters';
import { Delivery, DeliveryAttempt, DeliveryFilter, HttpHeader } from '../types/delivery';

@ObjectType('DeliveryConnection')
class DeliveryConnection extends connectionOf(Delivery, 'Delivery') {}

@Resolver(() => Delivery)
export class DeliveryResolver {
  @Authorized()
  @Query(() => DeliveryConnection, { description: 'Deliveries of every partner, newest first, each with its attempts.' })
  async deliveries(
    @Ctx() { ctx }: GraphQLContext,
    @Args(() => PageArgs) page: PageArgs,
    @Arg('filter', () => DeliveryFilter, { nullable: true }) filter?: DeliveryFilter | null,
  ): Promise<DeliveryConnection> {
    const { first, after } = pageOf(page);
    const rows = await searchDeliveries({ ctx, input: { filter: withoutNulls(filter), limit: first + 1, after } });
    return toConnection(rows, first, (d) => d.id);
  }

  @Authorized()
  @Query(() => Delivery, { nullable: true, description: 'One delivery (null when there is none with that id).' })
  async delivery(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<Delivery | null> {
    const [row] = await searchDeliveries({ ctx, input: { filter: { id }, limit: 1 } });
    return row ?? null;
  }

  @Authorized()
  @FieldResolver(() => [DeliveryAttempt], { description: 'Oldest first.' })
  async attempts(
    @Root() delivery: Delivery,
    @Ctx() context: GraphQLContext,
    @Arg('latest', () => Int, { nullable: true, description: 'Only the latest this many (1 to 100); omitted: every attempt.' })
    latest?: number | null,
  ): Promise<DeliveryAttempt[]> {
    if (latest != null && (!Number.isInteger(latest) || latest < 1 || latest > 100)) {
      throw new ValidationError([{ param: 'latest', code: 'parameter_invalid', message: 'latest must be between 1 and 100.' }]);
    }
    // One loader per `latest` asked for: a page of deliveries asks once either way.
    const attempts = loader<string, AttemptRow[]>(context, `attemptsOfDelivery:${latest ?? ''}`, async (ids) => {
      const found = await attemptsOf({ ctx: context.ctx, input: { deliveryIds: ids, latest: latest ?? undefined } });
      return ids.map((id) => found.get(id) ?? []);
    });
    return (await attempts.load(delivery.id)).map(toAttempt);
  }
}

function headerList(headers: Record<string, string>): HttpHeader[] {
  return Object.entries(headers).map(([name, value]) => ({ name, value }));
}

function toAttempt(a: AttemptRow): DeliveryAttempt {
  return {
    id: a.id,
    number: a.number,
    trigger: a.trigger,
    requestedBy: a.requestedBy,
    apiVersion: a.apiVersion,
    startedAt: a.startedAt,
    durationMs: a.durationMs,
    responseStatus: a.responseStatus,
    responseBodyExcerpt: a.responseBodyExcerpt,
    errorKind: a.errorKind,
    errorMessage: a.errorMessage,
    resolvedAddress: a.resolvedAddress,
    row: a,
  };
}

/** An attempt's headers, made into lists only for the attempts whose headers are asked for (a deliveries page asks for none). */
@Resolver(() => DeliveryAttempt)
export class DeliveryAttemptResolver {
  @Authorized()
  @FieldResolver(() => [HttpHeader], { description: "The request's headers as sent; signatures masked." })
  requestHeaders(@Root() attempt: DeliveryAttempt): HttpHeader[] {
    return headerList(sentHeaders(attempt.row));
  }

  @Authorized()
  @FieldResolver(() => [HttpHeader], { nullable: true })
  responseHeaders(@Root() attempt: DeliveryAttempt): HttpHeader[] | null {
    return attempt.row.responseHeaders ? headerList(attempt.row.responseHeaders) : null;
  }
}
