import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { listDeliveries } from '@/server/webhooks/list-deliveries';
import { deliveryList, listDeliveriesQuery } from '@/server/webhooks/schemas';

export const GET = partnerRoute({
  operationId: 'listWebhookDeliveries',
  summary: 'The delivery log of a subscription',
  description:
    'Newest first; each delivery with every attempt (time, duration, response status, headers and first 16 KiB of body, error kind).',
  tag: 'Webhooks',
  params: idParams,
  query: listDeliveriesQuery,
  response: { status: 200, schema: deliveryList, description: 'A page of deliveries' },
  errors: [{ status: 404, description: 'No subscription with this id for this partner and environment' }],
  handler: ({ ctx, params, query }) => listDeliveries({ ctx, input: { ...query, id: params.id } }),
});
