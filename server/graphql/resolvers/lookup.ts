import { Arg, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { findById } from '@/server/lookup/find-by-id';
import type { GraphQLContext } from '../context';
import { IdMatch } from '../types/id-match';

@Resolver()
export class LookupResolver {
  @Authorized()
  @Query(() => [IdMatch], {
    description:
      'What an id pasted from a ticket names: an order (by id, external id, quote or the request that created it), event, delivery, ' +
      'subscription, replay, partner, credential (client id) or failed request (request id). Several for an external id that several ' +
      'partners use; none when nothing matches.',
  })
  async findById(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => String) id: string): Promise<IdMatch[]> {
    return findById({ ctx, input: { id } });
  }
}
