import { idParams } from '@/server/common-schemas';
import { eventResource } from '@/server/events/schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { sendTestEvent } from '@/server/webhooks/send-test';

export const POST = partnerRoute({
  operationId: 'testWebhook',
  summary: 'Send a webhook.test event',
  description:
    'Delivers a synthetic `webhook.test` event to this subscription only, whatever its filters. Also at POST /webhooks/{id}/test.',
  tag: 'Webhooks',
  params: idParams,
  response: { status: 202, schema: eventResource, description: "The queued event; its id is the delivery's event id" },
  errors: [{ status: 404, description: 'No subscription with this id for this partner and environment' }],
  handler: ({ ctx, params }) => sendTestEvent({ ctx, input: params }),
});
