import { z } from 'zod';
import { createdRange, listOf, listQuery, ulidString, unixTime } from '../common-schemas';
import { versionField } from '../versions/requested';
import { EVENT_CATALOG } from './catalog';

// The latest version's event; older versions' are rendered from it (server/versions/changes/).
export const eventResource = z
  .object({
    id: ulidString.meta({ description: 'Event id; every retry and replay of this event carries the same id' }),
    object: z.literal('event'),
    api_version: versionField.meta({
      description: "The version this envelope is rendered in: a delivery's is its subscription's, an API answer's the request's",
    }),
    created: unixTime,
    livemode: z.boolean(),
    type: z.string().meta({ example: 'order.delivered' }),
    data: z.object({
      object: z.looseObject({ id: z.string(), status: z.string() }).meta({
        description:
          'The resource concerned, as its GET returns it, an order without its status_history (GET /partner/orders/{id} has it); for webhook.test the subscription',
      }),
      previous_attributes: z
        .record(z.string(), z.unknown())
        .optional()
        .meta({
          description:
            'The fields of data.object this event changed, with their values before it (status, updated, courier, cancellation); absent on order.created and webhook.test',
          example: { status: 'arrived_at_pickup', updated: 1767226200 },
        }),
    }),
  })
  .meta({ id: 'Event' });
export type EventResource = z.infer<typeof eventResource>;

export const eventList = listOf(eventResource, 'EventList');

export const listEventsQuery = z.strictObject({
  ...listQuery,
  ...createdRange,
  // Checked against the catalog: a misspelt type is a 400, not a silently empty list (and free text
  // with a NUL byte never reaches Postgres, which refuses it with a 500).
  type: z
    .enum(EVENT_CATALOG.map((e) => e.type) as [string, ...string[]])
    .optional()
    .meta({ description: 'An event type of the catalog (GET /partner/event-types)' }),
  order_id: ulidString.optional().meta({ description: 'Only the events of this order' }),
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
