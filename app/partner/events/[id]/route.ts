import { idParams } from '@/server/common-schemas';
import { getEvent } from '@/server/events/get';
import { eventResource } from '@/server/events/schemas';
import { partnerRoute } from '@/server/http/partner-route';

export const GET = partnerRoute({
  operationId: 'getEvent',
  summary: 'Retrieve an event',
  tag: 'Events',
  params: idParams,
  response: { status: 200, schema: eventResource, description: 'The event envelope, exactly as webhooks deliver it' },
  errors: [{ status: 404, description: 'No event with this id for this partner and environment' }],
  handler: ({ ctx, params }) => getEvent({ ctx, input: params }),
});
