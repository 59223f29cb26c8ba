import { eq } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import { actingFor, type Ctx, type OperatorActor } from '../context';
import { NotFoundError } from '../errors';
import { cancelReplay } from './cancel';
import { replayProgress, type ReplayProgress } from './search';

/** An operator cancels a replay: the partner's own verb runs in the replay's partner and environment. */
export async function cancelReplayAsOperator({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { replayId: string };
}): Promise<ReplayProgress> {
  const [owner] = await ctx.db
    .select({
      partnerId: webhookReplays.partnerId,
      environment: webhookReplays.environment,
      subscriptionId: webhookReplays.subscriptionId,
    })
    .from(webhookReplays)
    .where(eq(webhookReplays.id, input.replayId));
  if (!owner) throw new NotFoundError('replay', input.replayId);
  await cancelReplay({ ctx: actingFor(ctx, owner), input: { id: owner.subscriptionId, replay_id: input.replayId } });
  return replayProgress(ctx, input.replayId);
}
