import { partnerRoute } from '@/server/http/partner-route';
import { createOrder } from '@/server/orders/create';
import { listOrders } from '@/server/orders/list';
import { createOrderInput, listOrdersQuery, orderList, orderResource } from '@/server/orders/schemas';

export const POST = partnerRoute({
  operationId: 'createOrder',
  summary: 'Create an order from a quote',
  description: 'Uses an unexpired, unused quote of this partner and environment. Emits `order.created`.',
  tag: 'Orders',
  body: createOrderInput,
  response: { status: 201, schema: orderResource, description: 'The order' },
  errors: [
    { status: 404, description: 'No such quote for this partner and environment' },
    { status: 409, description: '`quote_already_used`, `duplicate_external_id` (names the existing order), or an Idempotency-Key in use' },
    { status: 422, description: '`quote_expired`, or an Idempotency-Key reused with another request' },
  ],
  handler: ({ ctx, body }) => createOrder({ ctx, input: body }),
});

export const GET = partnerRoute({
  operationId: 'listOrders',
  summary: 'List orders, newest first',
  tag: 'Orders',
  query: listOrdersQuery,
  response: { status: 200, schema: orderList, description: 'A page of orders' },
  handler: ({ ctx, query }) => listOrders({ ctx, input: query }),
});
