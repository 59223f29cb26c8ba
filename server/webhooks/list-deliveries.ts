import { and, asc, desc, eq, gte, inArray, lt, lte, type SQL } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries } from '@/db/schema';
import type { TenantCtx } from '../context';
import { unixSeconds } from '../time';
import { findSubscription } from './find';
import type { DeliveryResource, ListDeliveriesQuery } from './schemas';

/** The partner's delivery log for one subscription, newest first, each delivery with its attempts. */
export async function listDeliveries({ ctx, input }: { ctx: TenantCtx; input: ListDeliveriesQuery & { id: string } }) {
  // The subscription on the primary (one just created is found), its deliveries on the replica when there is one.
  const sub = await findSubscription(ctx, input.id);
  const conditions: SQL[] = [eq(webhookDeliveries.subscriptionId, sub.id)];
  if (input.status) conditions.push(eq(webhookDeliveries.status, input.status));
  if (input.event_type) conditions.push(eq(webhookDeliveries.eventType, input.event_type));
  if (input.created_gte !== undefined) conditions.push(gte(webhookDeliveries.createdAt, new Date(input.created_gte * 1000)));
  if (input.created_lte !== undefined) conditions.push(lte(webhookDeliveries.createdAt, new Date(input.created_lte * 1000)));
  if (input.starting_after) conditions.push(lt(webhookDeliveries.id, input.starting_after));
  const rows = await ctx.read
    .select()
    .from(webhookDeliveries)
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.id))
    .limit(input.limit + 1);
  const page = rows.slice(0, input.limit);
  const attempts = page.length
    ? await ctx.read
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.deliveryId,
            page.map((d) => d.id),
          ),
        )
        .orderBy(asc(webhookAttempts.attempt), asc(webhookAttempts.startedAt))
    : [];
  const data: DeliveryResource[] = page.map((d) => ({
    id: d.id,
    object: 'webhook_delivery',
    webhook_id: d.subscriptionId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    api_version: d.apiVersion,
    attempt_count: d.attempts,
    next_attempt_at: d.nextAttemptAt ? unixSeconds(d.nextAttemptAt) : null,
    created: unixSeconds(d.createdAt),
    attempts: attempts
      .filter((a) => a.deliveryId === d.id)
      .map((a) => ({
        attempt: a.attempt,
        trigger: a.trigger as 'scheduled' | 'manual' | 'replay',
        api_version: a.apiVersion,
        started_at: a.startedAt.getTime() / 1000,
        duration_ms: a.durationMs,
        response_status: a.responseStatus,
        response_headers: a.responseHeaders,
        response_body: a.responseBody,
        error_kind: a.errorKind as DeliveryResource['attempts'][number]['error_kind'],
        error_message: a.errorMessage,
      })),
  }));
  return { object: 'list' as const, data, has_more: rows.length > input.limit };
}
