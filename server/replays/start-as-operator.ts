import { and, eq, isNull } from 'drizzle-orm';
import { webhookSubscriptions } from '@/db/schema';
import { actingFor, type Ctx, type OperatorActor } from '../context';
import { NotFoundError } from '../errors';
import { createReplay } from './create';
import type { CreateReplayInput } from './schemas';
import { replayProgress, type ReplayProgress } from './search';

export type OperatorReplayAnswer =
  { kind: 'replay'; replay: ReplayProgress } | { kind: 'dry_run'; matched: number; firstEventIds: string[] };

/** An operator starts (or dry-runs) a replay: the partner's own verb runs in the subscription's partner and environment. */
export async function startReplayAsOperator({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: CreateReplayInput & { webhookId: string };
}): Promise<OperatorReplayAnswer> {
  const [owner] = await ctx.db
    .select({ partnerId: webhookSubscriptions.partnerId, environment: webhookSubscriptions.environment })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, input.webhookId), isNull(webhookSubscriptions.deletedAt)));
  if (!owner) throw new NotFoundError('webhook subscription', input.webhookId);
  const answer = await createReplay({ ctx: actingFor(ctx, owner), input });
  if (answer.kind === 'dry_run') {
    const preview = answer.preview as { events_matched: number; first_event_ids: string[] };
    return { kind: 'dry_run', matched: preview.events_matched, firstEventIds: preview.first_event_ids };
  }
  return { kind: 'replay', replay: await replayProgress(ctx, answer.replay.id) };
}
