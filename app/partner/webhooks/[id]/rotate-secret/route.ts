import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { rotateWebhookSecret } from '@/server/webhooks/rotate-secret';
import { webhookWithSecret } from '@/server/webhooks/schemas';

export const POST = partnerRoute({
  operationId: 'rotateWebhookSecret',
  summary: 'Rotate the signing secret',
  description: 'Returns the new secret once. Each replaced secret keeps signing for 24 hours after its own rotation (at most three).',
  tag: 'Webhooks',
  params: idParams,
  response: { status: 200, schema: webhookWithSecret, description: 'The subscription with its new secret (shown only here)' },
  errors: [{ status: 404, description: 'No subscription with this id for this partner and environment' }],
  handler: ({ ctx, params }) => rotateWebhookSecret({ ctx, input: params }),
});
