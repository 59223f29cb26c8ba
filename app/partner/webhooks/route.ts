import { partnerRoute } from '@/server/http/partner-route';
import { createWebhook } from '@/server/webhooks/create';
import { listWebhooks } from '@/server/webhooks/list';
import { createWebhookInput, listWebhooksQuery, webhookList, webhookWithSecret } from '@/server/webhooks/schemas';

export const POST = partnerRoute({
  operationId: 'createWebhook',
  summary: 'Register a webhook endpoint',
  description:
    'Returns the signing secret once. The URL must be https:// with a public host. Its deliveries are rendered in `api_version`, by default the version of this request. Also at POST /webhooks.',
  tag: 'Webhooks',
  body: createWebhookInput,
  response: { status: 201, schema: webhookWithSecret, description: 'The subscription, with its secret (shown only here)' },
  errors: [
    { status: 422, description: '`subscription_limit_reached` (20 per environment), or an Idempotency-Key reused with another request' },
  ],
  handler: ({ ctx, body, version }) => createWebhook({ ctx, input: { ...body, api_version: body.api_version ?? version } }),
});

export const GET = partnerRoute({
  operationId: 'listWebhooks',
  summary: 'List webhook subscriptions',
  tag: 'Webhooks',
  query: listWebhooksQuery,
  response: { status: 200, schema: webhookList, description: 'A page of subscriptions (never their secrets)' },
  handler: ({ ctx, query }) => listWebhooks({ ctx, input: query }),
});
