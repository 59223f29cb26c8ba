import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { getOrder } from '@/server/orders/get';
import { orderResource } from '@/server/orders/schemas';

export const GET = partnerRoute({
  operationId: 'getOrder',
  summary: 'Retrieve an order',
  tag: 'Orders',
  params: idParams,
  response: { status: 200, schema: orderResource, description: 'The order' },
  errors: [{ status: 404, description: 'No order with this id for this partner and environment' }],
  handler: ({ ctx, params }) => getOrder({ ctx, input: params }),
});
