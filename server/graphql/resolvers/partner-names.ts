import { Authorized, Ctx, FieldResolver, Resolver, Root, type ClassType } from 'type-graphql';
import { partnerNames } from '@/server/partners/names';
import { loader, type GraphQLContext } from '../context';
import { Delivery } from '../types/delivery';
import { Event } from '../types/event';
import { Order } from '../types/order';
import { SubscriptionHealth } from '../types/overview';

/** `partnerName` on a type with a `partnerId`: the rows of one request read their partners' names in one statement. */
function partnerNameOn<T extends { partnerId: string }>(type: ClassType<T>): ClassType {
  @Resolver(() => type)
  class PartnerNameResolver {
    @Authorized()
    @FieldResolver(() => String, { description: "The partner's name." })
    partnerName(@Root() row: T, @Ctx() context: GraphQLContext): Promise<string> {
      const names = loader<string, string>(context, 'partnerName', async (ids) => {
        const found = await partnerNames({ ctx: context.ctx, input: { ids } });
        return ids.map((id) => found.get(id) ?? id);
      });
      return names.load(row.partnerId);
    }
  }
  return PartnerNameResolver;
}

// The types whose console tables name a partner.
export const PARTNER_NAME_RESOLVERS: ClassType[] = [
  partnerNameOn(Delivery),
  partnerNameOn(Event),
  partnerNameOn(Order),
  partnerNameOn(SubscriptionHealth),
];
