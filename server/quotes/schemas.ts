import { z } from 'zod';
import { coordinates, money, unixTime, ulidString } from '../common-schemas';

export const createQuoteInput = z
  .strictObject({
    pickup: coordinates,
    dropoff: coordinates,
  })
  // A trip the default settings quote (about 1 km in Manhattan): the coordinates' own examples are one point,
  // which a request built from them (a reference's "try it", the Postman collection) would send as 0 m.
  .meta({ id: 'QuoteRequest', example: { pickup: { lat: 40.7484, lng: -73.9857 }, dropoff: { lat: 40.758, lng: -73.9855 } } });

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
