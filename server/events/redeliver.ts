import { and, eq, isNull } from 'drizzle-orm';
import { events, webhookSubscriptions } from '@/db/schema';
import { recordAudit } from '../audit/record';
import { requesterOf, withTransaction, type TenantCtx } from '../context';
import { ConflictError, NotFoundError } from '../errors';
import { resendEvents } from '../webhooks/resend';
import { assertRetained } from '../history/window';
import { receivesDeliveries } from '../delivery/disabled';
import { isAudience } from './catalog';

/**
 * Sends one event again, with its original id, rendered in the subscription's version now: to the given
 * subscription, or to every enabled subscription whose filters accept it. The attempts are recorded as `manual`.
 */
export async function redeliverEvent({ ctx, input }: { ctx: TenantCtx; input: { id: string; webhook_id?: string } }) {
  const { partnerId, environment } = ctx.actor;
  return withTransaction(ctx, async (tx) => {
    const [event] = await tx.db
      .select({ id: events.id, type: events.type, objectId: events.objectId, createdAt: events.createdAt })
      .from(events)
      .where(and(eq(events.id, input.id), eq(events.partnerId, partnerId), eq(events.environment, environment)));
    if (!event) throw new NotFoundError('event', input.id);
    assertRetained(tx.env, 'id', event.createdAt);
    const subscriptions = await tx.db
      .select()
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.partnerId, partnerId),
          eq(webhookSubscriptions.environment, environment),
          isNull(webhookSubscriptions.deletedAt),
          ...(input.webhook_id ? [eq(webhookSubscriptions.id, input.webhook_id)] : []),
        ),
      );
    if (input.webhook_id && subscriptions.length === 0) throw new NotFoundError('webhook subscription', input.webhook_id);
    if (input.webhook_id && !receivesDeliveries(subscriptions[0]!)) {
      throw new ConflictError('subscription_disabled', 'This subscription is disabled: enable it (PATCH status) before sending to it.');
    }
    const targets = subscriptions.filter((s) => receivesDeliveries(s) && (input.webhook_id ? true : isAudience(event, s)));
    const sentTo: string[] = [];
    for (const s of targets) {
      const sent = await resendEvents(tx, {
        subscriptionId: s.id,
        events: [event],
        apiVersion: s.apiVersion,
        trigger: 'manual',
        requestedBy: requesterOf(ctx.actor),
      });
      if (sent.length > 0) sentTo.push(s.id);
    }
    await recordAudit(tx, { action: 'event.redeliver', targetType: 'event', targetId: event.id, after: { webhook_ids: sentTo } });
    return { object: 'redelivery' as const, event_id: event.id, webhook_ids: sentTo };
  });
}
