import { Arg, Authorized, Ctx, Extensions, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { getSubscriptionSummary } from '@/server/webhooks/get-summary';
import { setSubscriptionStatus } from '@/server/webhooks/set-status';
import { webhookSuccessRates, type SuccessRate } from '@/server/webhooks/success-rates';
import { inAggregateSlot, loader, type GraphQLContext } from '../context';
import { BATCHED_AGGREGATE } from '../limits';
import { DeliverySuccessRate, SUBSCRIPTION_STATUSES, WebhookSubscription } from '../types/partner';

const SUCCESS_RATE_HOURS = 24;

@Resolver(() => WebhookSubscription)
export class WebhookSubscriptionResolver {
  @Authorized()
  @Query(() => WebhookSubscription, { description: "Any partner's live subscription." })
  webhookSubscription(@Ctx() { ctx }: GraphQLContext, @Arg('id', () => ID) id: string): Promise<WebhookSubscription> {
    return getSubscriptionSummary({ ctx, input: { id } });
  }

  @Authorized()
  @Extensions(BATCHED_AGGREGATE)
  @FieldResolver(() => DeliverySuccessRate, { description: 'How its delivery attempts fared over the last 24 hours.' })
  successRate(@Root() subscription: WebhookSubscription, @Ctx() context: GraphQLContext): Promise<DeliverySuccessRate> {
    const rates = loader<string, SuccessRate>(context, 'webhookSuccessRates', async (subscriptionIds) => {
      const found = await inAggregateSlot(context, () =>
        webhookSuccessRates({ ctx: context.ctx, input: { subscriptionIds, hours: SUCCESS_RATE_HOURS } }),
      );
      return subscriptionIds.map((id) => found.get(id)!);
    });
    return rates.load(subscription.id);
  }

  @Authorized('support')
  @Mutation(() => WebhookSubscription, {
    description:
      "Enables or disables any partner's subscription, as the partner's PATCH /partner/webhooks/{id} would; enabling restarts its failure clock.",
  })
  setSubscriptionStatus(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('id', () => ID) id: string,
    @Arg('status', () => SUBSCRIPTION_STATUSES) status: keyof typeof SUBSCRIPTION_STATUSES,
  ): Promise<WebhookSubscription> {
    return setSubscriptionStatus({ ctx, input: { id, status } });
  }
}
