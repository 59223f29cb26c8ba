import { z } from 'zod';
import { coordinates, money, unixTime, ulidString } from '../common-schemas';

export const createQuoteInput = z
  .strictObject({
    pickup: coordinates,
    dropoff: coordinates,
  })
  .meta({ id: 'QuoteRequest' });

export type CreateQuoteInput = z.infer<typeof createQuoteInput>;

export const quoteResource = z
  .object({
    id: ulidString,
    object: z.literal('quote'),
    livemode: z.boolean(),
    created: unixTime,
    pickup: coordinates,
    dropoff: coordinates,
    distance_meters: z.number().int().meta({ description: 'Great-circle distance' }),
    fee: money,
    duration_seconds: z.number().int().meta({ description: 'Estimated time from pickup to dropoff' }),
    pickup_eta: unixTime,
    dropoff_eta: unixTime,
    expires_at: unixTime.meta({ description: 'After this time the quote can no longer be used for an order' }),
  })
  .meta({ id: 'Quote' });

export type QuoteResource = z.infer<typeof quoteResource>;
