import { eq } from 'drizzle-orm';
import { events } from '@/db/schema';
import { actingFor, type Ctx, type OperatorActor } from '../context';
import { NotFoundError } from '../errors';
import { redeliverEvent } from './redeliver';

/**
 * An operator re-sends an event: the partner's own redeliver runs in the event's partner and
 * environment, so the same checks apply, and the audit and the attempts name the operator.
 */
export async function redeliverEventAsOperator({
  ctx,
  input,
}: {
  ctx: Ctx<OperatorActor>;
  input: { eventId: string; webhookId?: string };
}) {
  const [owner] = await ctx.db
    .select({ partnerId: events.partnerId, environment: events.environment })
    .from(events)
    .where(eq(events.id, input.eventId));
  if (!owner) throw new NotFoundError('event', input.eventId);
  return redeliverEvent({ ctx: actingFor(ctx, owner), input: { id: input.eventId, webhook_id: input.webhookId } });
}
