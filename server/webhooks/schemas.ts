import { z } from 'zod';
import { createdRange, listOf, listQuery, ulidString, unixTime } from '../common-schemas';
import { EVENT_TYPES } from '../events/catalog';
import { MAX_URL_LENGTH } from '../delivery/url-policy';
import { versionField } from '../versions/requested';

const eventFilters = z
  .array(z.string().max(100))
  .max(50)
  .superRefine((list, ctx) => {
    list.forEach((type, i) => {
      if (!EVENT_TYPES.has(type))
        ctx.addIssue({ code: 'custom', path: [i], message: `unknown event type '${type}'; see GET /partner/event-types` });
    });
  })
  .meta({ description: 'Event types to deliver; empty (the default) delivers every catalog type' });

const url = z
  .string()
  .max(MAX_URL_LENGTH)
  .meta({ description: 'https:// URL with a public host', example: 'https://example.com/webhooks' });
const description = z.string().max(500);

const apiVersion = versionField.meta({
  description: 'The version its deliveries are rendered in (GET /partner/versions); on create, the default is the version of the request',
});

export const createWebhookInput = z
  .strictObject({ url, description: description.optional(), event_filters: eventFilters.optional(), api_version: apiVersion.optional() })
  .meta({ id: 'WebhookSubscriptionRequest' });
export type CreateWebhookInput = z.infer<typeof createWebhookInput>;

export const updateWebhookInput = z
  .strictObject({
    url: url.optional(),
    description: description.nullable().optional(),
    event_filters: eventFilters.optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
    api_version: apiVersion.optional(),
  })
  .meta({ id: 'WebhookSubscriptionUpdate' });
export type UpdateWebhookInput = z.infer<typeof updateWebhookInput>;

export const webhookResource = z
  .object({
    id: ulidString,
    object: z.literal('webhook_subscription'),
    livemode: z.boolean(),
    url: z.string(),
    description: z.string().nullable(),
    event_filters: z.array(z.string()),
    api_version: apiVersion,
    status: z.enum(['enabled', 'disabled']),
    disabled_reason: z.string().nullable().meta({
      description: 'gone (the endpoint answered 410), too_many_failures, disabled_by_partner, disabled_by_operator (support or an admin)',
    }),
    created: unixTime,
    updated: unixTime,
  })
  .meta({ id: 'WebhookSubscription' });
export type WebhookResource = z.infer<typeof webhookResource>;

export const webhookWithSecret = webhookResource
  .extend({ secret: z.string().meta({ description: 'Signing secret (whsec_…): shown only in this response' }) })
  .meta({ id: 'WebhookSubscriptionWithSecret' });

export const webhookList = listOf(webhookResource, 'WebhookSubscriptionList');
export const listWebhooksQuery = z.strictObject({ ...listQuery });

export const deletedWebhook = z
  .object({ id: ulidString, object: z.literal('webhook_subscription'), deleted: z.literal(true) })
  .meta({ id: 'DeletedWebhookSubscription' });

export const attemptResource = z
  .object({
    attempt: z.number().int(),
    trigger: z.enum(['scheduled', 'manual', 'replay']),
    api_version: versionField.meta({ description: 'The version its body was rendered in' }),
    started_at: z.number().meta({ description: 'Unix time with milliseconds' }),
    duration_ms: z.number().int(),
    response_status: z.number().int().nullable(),
    response_headers: z.record(z.string(), z.string()).nullable(),
    response_body: z.string().nullable().meta({ description: 'First 16 KiB' }),
    error_kind: z.enum(['timeout', 'connection', 'tls', 'dns', 'blocked_address', 'http_status']).nullable(),
    error_message: z.string().nullable(),
  })
  .meta({ id: 'WebhookAttempt' });

export const deliveryResource = z
  .object({
    id: ulidString,
    object: z.literal('webhook_delivery'),
    webhook_id: ulidString,
    event_id: ulidString,
    event_type: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed', 'skipped']),
    api_version: versionField.meta({
      description:
        "The version its attempts render the event in: the subscription's when it was made, or reopened by a redelivery or replay",
    }),
    attempt_count: z.number().int(),
    next_attempt_at: unixTime.nullable(),
    created: unixTime,
    attempts: z.array(attemptResource),
  })
  .meta({ id: 'WebhookDelivery' });
export type DeliveryResource = z.infer<typeof deliveryResource>;

export const deliveryList = listOf(deliveryResource, 'WebhookDeliveryList');
export const listDeliveriesQuery = z.strictObject({
  ...listQuery,
  ...createdRange,
  status: z.enum(['pending', 'succeeded', 'failed', 'skipped']).optional(),
  event_type: z.string().max(100).optional(),
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;
