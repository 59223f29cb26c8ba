import type { webhookSubscriptions } from '@/db/schema';
import { livemode } from '../context';
import type { WebhookResource } from './schemas';

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

export function presentWebhook(row: SubscriptionRow): WebhookResource {
  return {
    id: row.id,
    object: 'webhook_subscription',
    livemode: livemode(row.environment),
    url: row.url,
    description: row.description,
    event_filters: row.eventFilters,
    status: row.status,
    disabled_reason: row.disabledReason,
    created: unix(row.createdAt),
    updated: unix(row.updatedAt),
  };
}
