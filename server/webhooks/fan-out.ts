import { and, eq, isNull } from 'drizzle-orm';
import { events, webhookDeliveries, webhookSubscriptions } from '@/db/schema';
import { withTransaction, type Ctx } from '../context';
import { newId } from '../ids';
import { enqueueMany } from '../outbox/enqueue';
import { DELIVER } from '../outbox/queues';

export interface FanOutResult {
  eventId: string;
  found: boolean;
  /** Deliveries created now: pending for enabled subscriptions, skipped for disabled ones. */
  pending: number;
  skipped: number;
}

/**
 * Fans one committed event out to the matching subscriptions of its partner and environment: one
 * delivery per (event, subscription), unique, so a retried fan-out creates nothing twice. Empty
 * filters match every catalog type; webhook.test goes only to the subscription it was sent for.
 * Disabled subscriptions get a `skipped` delivery, so a later replay can find what they missed.
 */
export async function fanOutEvent({ ctx, input }: { ctx: Ctx; input: { eventId: string } }): Promise<FanOutResult> {
  return withTransaction(ctx, async (tx) => {
    const [event] = await tx.db
      .select({ id: events.id, type: events.type, partnerId: events.partnerId, environment: events.environment, objectId: events.objectId })
      .from(events)
      .where(eq(events.id, input.eventId));
    if (!event) return { eventId: input.eventId, found: false, pending: 0, skipped: 0 };
    const subscriptions = await tx.db
      .select({ id: webhookSubscriptions.id, status: webhookSubscriptions.status, filters: webhookSubscriptions.eventFilters })
      .from(webhookSubscriptions)
      .where(
        and(
          eq(webhookSubscriptions.partnerId, event.partnerId),
          eq(webhookSubscriptions.environment, event.environment),
          isNull(webhookSubscriptions.deletedAt),
        ),
      );
    const matching = subscriptions.filter((s) =>
      event.type === 'webhook.test' ? s.id === event.objectId : s.filters.length === 0 || s.filters.includes(event.type),
    );
    if (matching.length === 0) return { eventId: event.id, found: true, pending: 0, skipped: 0 };
    const now = new Date();
    const created = await tx.db
      .insert(webhookDeliveries)
      .values(
        matching.map((s) => ({
          id: newId(),
          eventId: event.id,
          subscriptionId: s.id,
          eventType: event.type,
          status: s.status === 'enabled' ? ('pending' as const) : ('skipped' as const),
          createdAt: now,
          updatedAt: now,
        })),
      )
      .onConflictDoNothing({ target: [webhookDeliveries.eventId, webhookDeliveries.subscriptionId] })
      .returning({ id: webhookDeliveries.id, subscriptionId: webhookDeliveries.subscriptionId, status: webhookDeliveries.status });
    const pending = created.filter((d) => d.status === 'pending');
    await enqueueMany(
      tx,
      DELIVER,
      pending.map((d) => ({ data: { delivery_id: d.id, subscription_id: d.subscriptionId, attempt: 1 } })),
    );
    return { eventId: event.id, found: true, pending: pending.length, skipped: created.length - pending.length };
  });
}
