import type { webhookSubscriptions } from '@/db/schema';
import { livemode } from '../context';
import { unixSeconds } from '../time';
import type { WebhookResource } from './schemas';

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;

export function presentWebhook(row: SubscriptionRow): WebhookResource {
  return {
    id: row.id,
    object: 'webhook_subscription',
    livemode: livemode(row.environment),
    url: row.url,
    description: row.description,
    event_filters: row.eventFilters,
    api_version: row.apiVersion,
    status: row.status,
    disabled_reason: row.disabledReason,
    created: unixSeconds(row.createdAt),
    updated: unixSeconds(row.updatedAt),
  };
}
