import { Arg, Authorized, Ctx, Extensions, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import { goLiveChecklist } from '@/server/onboarding/go-live-checklist';
import { goLiveHistory } from '@/server/onboarding/go-live-history';
import { getPartner } from '@/server/partners/get';
import { inAggregateSlot, type GraphQLContext } from '../context';
import { AGGREGATE } from '../limits';
import { GoLiveChecklistItem, GoLiveDecisionEntry, GoLiveReview } from '../types/partner';

/** The go-live review: its state, the checklist of the partner's sandbox record, and its history. */
@Resolver(() => GoLiveReview)
export class GoLiveResolver {
  @Authorized()
  @Query(() => GoLiveReview, { description: "A partner's go-live review." })
  async goLiveReview(@Ctx() { ctx }: GraphQLContext, @Arg('partnerId', () => ID) partnerId: string): Promise<GoLiveReview> {
    return (await getPartner({ ctx, input: { id: partnerId } })).goLive;
  }

  @Authorized()
  // Eight statements per partner, counting its sandbox quotes and orders: one per row under a list.
  @Extensions(AGGREGATE)
  @FieldResolver(() => [GoLiveChecklistItem], {
    description: "Computed from the partner's own sandbox activity, each item with its evidence.",
  })
  checklist(@Root() review: GoLiveReview, @Ctx() context: GraphQLContext): Promise<GoLiveChecklistItem[]> {
    return inAggregateSlot(context, () => goLiveChecklist({ ctx: context.ctx, input: { partnerId: review.partnerId } }));
  }

  @Authorized()
  @FieldResolver(() => [GoLiveDecisionEntry], { description: 'Every move of the review, newest first: who, when, and the note.' })
  history(@Root() review: GoLiveReview, @Ctx() { ctx }: GraphQLContext): Promise<GoLiveDecisionEntry[]> {
    return goLiveHistory({ ctx, input: { partnerId: review.partnerId } });
  }
}
