import { eq } from 'drizzle-orm';
import { webhookReplays } from '@/db/schema';
import { actingFor, type Ctx, type OperatorActor } from '../context';
import { NotFoundError } from '../errors';
import { cancelReplay } from './cancel';
import { requesterOfReplay } from './present';
import type { ReplayProgress } from './search';

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
      requestedBy: webhookReplays.requestedBy,
    })
    .from(webhookReplays)
    .where(eq(webhookReplays.id, input.replayId));
  if (!owner) throw new NotFoundError('replay', input.replayId);
  const replay = await cancelReplay({ ctx: actingFor(ctx, owner), input: { id: owner.subscriptionId, replay_id: input.replayId } });
  return { ...replay, partner_id: owner.partnerId, environment: owner.environment, requested_by: requesterOfReplay(owner.requestedBy) };
}
