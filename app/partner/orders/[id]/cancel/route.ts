import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { cancelOrder } from '@/server/orders/cancel';
import { cancelOrderInput, orderResource } from '@/server/orders/schemas';

export const POST = partnerRoute({
  operationId: 'cancelOrder',
  summary: 'Cancel an order',
  description: 'Possible before pickup (`created`, `courier_assigned`, `arrived_at_pickup`). Emits `order.cancelled`.',
  tag: 'Orders',
  params: idParams,
  body: cancelOrderInput,
  response: { status: 200, schema: orderResource, description: 'The cancelled order' },
  errors: [
    { status: 404, description: 'No order with this id for this partner and environment' },
    { status: 409, description: '`cancel_not_allowed` (with `reason`) once the courier has the goods or the order is finished' },
  ],
  handler: ({ ctx, params, body }) => cancelOrder({ ctx, input: { id: params.id, reason: body.reason } }),
});
