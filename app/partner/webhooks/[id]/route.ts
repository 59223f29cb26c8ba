import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { deleteWebhook } from '@/server/webhooks/delete';
import { getWebhook } from '@/server/webhooks/get';
import { deletedWebhook, updateWebhookInput, webhookResource } from '@/server/webhooks/schemas';
import { updateWebhook } from '@/server/webhooks/update';

const notFound = [{ status: 404, description: 'No subscription with this id for this partner and environment' }];

export const GET = partnerRoute({
  operationId: 'getWebhook',
  summary: 'Retrieve a webhook subscription',
  tag: 'Webhooks',
  params: idParams,
  response: { status: 200, schema: webhookResource, description: 'The subscription (never its secret)' },
  errors: notFound,
  handler: ({ ctx, params }) => getWebhook({ ctx, input: params }),
});

export const PATCH = partnerRoute({
  operationId: 'updateWebhook',
  summary: 'Update a webhook subscription',
  description:
    'url, description, event_filters, status (`enabled` re-enables a disabled subscription), api_version (deliveries made from then on; those on their way keep theirs).',
  tag: 'Webhooks',
  params: idParams,
  body: updateWebhookInput,
  response: { status: 200, schema: webhookResource, description: 'The updated subscription' },
  errors: notFound,
  handler: ({ ctx, params, body }) => updateWebhook({ ctx, input: { ...body, id: params.id } }),
});

export const DELETE = partnerRoute({
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook subscription',
  tag: 'Webhooks',
  params: idParams,
  response: { status: 200, schema: deletedWebhook, description: 'Deleted' },
  errors: notFound,
  handler: ({ ctx, params }) => deleteWebhook({ ctx, input: params }),
});
