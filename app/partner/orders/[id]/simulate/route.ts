import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { orderResource, simulateOrderInput } from '@/server/orders/schemas';
import { simulateOrder } from '@/server/orders/simulate';

export const POST = partnerRoute({
  operationId: 'simulateOrder',
  summary: 'Sandbox: move an order one step',
  description: 'Moves the order to `status`, or to the next happy-path step when the body is empty, with real events and webhooks.',
  tag: 'Sandbox',
  params: idParams,
  body: simulateOrderInput,
  response: { status: 200, schema: orderResource, description: 'The order after the step' },
  errors: [
    { status: 403, description: '`sandbox_only`: production credentials' },
    { status: 404, description: 'No order with this id for this partner and environment' },
    {
      status: 409,
      description:
        '`invalid_state_transition`; `order_history_full` (with `limit`): the order holds 99 of its 100 status changes, the last kept for ending it',
    },
  ],
  handler: ({ ctx, params, body }) => simulateOrder({ ctx, input: { id: params.id, status: body.status } }),
});
