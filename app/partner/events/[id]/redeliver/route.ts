import { idParams } from '@/server/common-schemas';
import { redeliverEvent } from '@/server/events/redeliver';
import { partnerRoute } from '@/server/http/partner-route';
import { redeliverInput, redelivery } from '@/server/replays/schemas';

export const POST = partnerRoute({
  operationId: 'redeliverEvent',
  summary: 'Send one event again',
  description:
    'To `webhook_id`, or to every enabled subscription whose filters accept the event; the same envelope and id, recorded as a `manual` attempt. A delivery still on its way is not sent twice.',
  tag: 'Events',
  params: idParams,
  body: redeliverInput,
  response: { status: 202, schema: redelivery, description: 'The subscriptions it is sent to again' },
  errors: [
    { status: 404, description: 'No such event (or subscription) for this partner and environment' },
    { status: 409, description: '`subscription_disabled`, or an Idempotency-Key in use' },
  ],
  handler: ({ ctx, params, body }) => redeliverEvent({ ctx, input: { ...body, id: params.id } }),
});
