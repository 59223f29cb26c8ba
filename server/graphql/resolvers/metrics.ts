import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { overview } from '@/server/metrics/overview';
import type { GraphQLContext } from '../context';
import { Overview } from '../types/overview';

@Resolver()
export class MetricsResolver {
  @Authorized()
  @Query(() => Overview, {
    description: 'Attempts per minute and success rate over the window, the delivery backlog, endpoints in trouble.',
  })
  async overview(
    @Ctx() { ctx }: GraphQLContext,
    @Arg('windowMinutes', () => Int, { defaultValue: 60, description: '1 to 1440.' }) windowMinutes: number,
  ): Promise<Overview> {
    return overview({ ctx, input: { windowMinutes } });
  }
}
