import { idParams } from '@/server/common-schemas';
import { partnerRoute } from '@/server/http/partner-route';
import { getQuote } from '@/server/quotes/get';
import { quoteResource } from '@/server/quotes/schemas';

export const GET = partnerRoute({
  operationId: 'getQuote',
  summary: 'Retrieve a quote',
  tag: 'Quotes',
  params: idParams,
  response: { status: 200, schema: quoteResource, description: 'The quote' },
  errors: [{ status: 404, description: 'No quote with this id for this partner and environment' }],
  handler: ({ ctx, params }) => getQuote({ ctx, input: params }),
});
