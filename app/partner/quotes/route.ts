import { partnerRoute } from '@/server/http/partner-route';
import { createQuote } from '@/server/quotes/create';
import { createQuoteInput, quoteResource } from '@/server/quotes/schemas';

export const POST = partnerRoute({
  operationId: 'createQuote',
  summary: 'Quote a delivery',
  description: 'Prices a delivery from pickup to dropoff. A quote is valid until `expires_at` and can be used for one order.',
  tag: 'Quotes',
  body: createQuoteInput,
  response: { status: 201, schema: quoteResource, description: 'The quote' },
  errors: [
    {
      status: 422,
      description:
        'Valid coordinates, but the trip is outside the service radius (`distance_too_long`) or too short (`distance_too_short`)',
    },
  ],
  handler: ({ ctx, body }) => createQuote({ ctx, input: body }),
});
