import { Arg, Authorized, Ctx, Extensions, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import { latestFailures } from '@/server/metrics/latest-failures';
import { overview } from '@/server/metrics/overview';
import { subscriptionHealth } from '@/server/metrics/subscription-health';
import { inAggregateSlot, type GraphQLContext } from '../context';
import { AGGREGATE } from '../limits';
import { FailedAttempt, Overview } from '../types/overview';
import { SubscriptionHealthReport } from '../types/subscription-health';

@Resolver(() => Overview)
export class MetricsResolver {
  @Authorized()
  @Extensions(AGGREGATE)
  @Query(() => Overview, {
    description: 'Attempts per minute and success rate over the window, the delivery backlog, endpoints in trouble.',
  })
  async overview(
    @Ctx() context: GraphQLContext,
    @Arg('windowMinutes', () => Int, { defaultValue: 60, description: '1 to 1440.' }) windowMinutes: number,
  ): Promise<Overview> {
    return inAggregateSlot(context, () => overview({ ctx: context.ctx, input: { windowMinutes } }));
  }

  @Authorized()
  @Extensions(AGGREGATE)
  @FieldResolver(() => [FailedAttempt], { description: 'The newest failed attempts in the window, newest first.' })
  async latestFailures(
    @Root() root: Overview,
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { defaultValue: 10, description: '1 to 50.' }) first: number,
  ): Promise<FailedAttempt[]> {
    return inAggregateSlot(context, () => latestFailures({ ctx: context.ctx, input: { since: root.since, first } }));
  }

  @Authorized()
  @Extensions(AGGREGATE)
  @Query(() => SubscriptionHealthReport, {
    description: "One subscription's success rate and latency over time, status classes, failure streak and backlog.",
  })
  async subscriptionHealth(
    @Ctx() context: GraphQLContext,
    @Arg('id', () => ID) id: string,
    @Arg('windowHours', () => Int, { defaultValue: 24, description: '1 to 168.' }) windowHours: number,
  ): Promise<SubscriptionHealthReport> {
    return inAggregateSlot(context, () => subscriptionHealth({ ctx: context.ctx, input: { id, windowHours } }));
  }
}
