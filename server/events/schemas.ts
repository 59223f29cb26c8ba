import { z } from 'zod';
import { createdRange, listOf, listQuery, ulidString, unixTime } from '../api/common-schemas';

export const eventResource = z
  .object({
    id: ulidString.meta({ description: 'Event id; every retry and replay of this event carries the same id' }),
    object: z.literal('event'),
    created: unixTime,
    livemode: z.boolean(),
    type: z.string().meta({ example: 'order.delivered' }),
    data: z.object({
      object: z
        .looseObject({ id: z.string(), status: z.string() })
        .meta({ description: 'The resource concerned, as its GET returns it (an order; for webhook.test the subscription)' }),
    }),
  })
  .meta({ id: 'Event' });

export const eventList = listOf(eventResource, 'EventList');

export const listEventsQuery = z.strictObject({
  ...listQuery,
  ...createdRange,
  type: z.string().max(100).optional(),
  order_id: z.string().max(64).optional(),
});
export type ListEventsQuery = z.infer<typeof listEventsQuery>;

export const eventType = z
  .object({
    object: z.literal('event_type'),
    type: z.string(),
    description: z.string(),
    example: eventResource,
  })
  .meta({ id: 'EventType' });

export const eventTypeList = listOf(eventType, 'EventTypeList');
