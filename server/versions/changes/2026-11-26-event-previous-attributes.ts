import { defineChange, type JsonObject, type JsonSchema } from '../change';

// What this change reads of an event's stored row (server/events/present.ts StoredEvent): the order as it
// was written, whole, history included.
interface Source {
  envelope: { data: { object: JsonObject } };
}

const HISTORY = [
  { status: 'created', at: 1_767_225_600 },
  { status: 'courier_assigned', at: 1_767_225_900 },
  { status: 'arrived_at_pickup', at: 1_767_226_200 },
  { status: 'picked_up', at: 1_767_226_500 },
];
const ORDER = { id: '01JGQ0Z8X4R6W2T1V9M3K5H7NB', object: 'order', status: 'picked_up', updated: 1_767_226_500 };
const STORED = { id: '01JGQ11M3N4P5Q6R7S8T9V0W1X', object: 'event', created: 1_767_226_500, livemode: false, type: 'order.picked_up' };
const PREVIOUS = { status: 'arrived_at_pickup', updated: 1_767_226_200 };

/**
 * The rough edge: every order event embedded the order's whole status_history (up to 100 entries, about
 * 4.8 KB of each envelope, the same entries again in every event of the order), while what a receiver
 * wants from an event is what it changed. Stripe's `previous_attributes` says that in a few bytes.
 */
export const eventPreviousAttributes = defineChange({
  version: '2026-11-26',
  name: 'event-previous-attributes',
  title: 'Order events carry `data.previous_attributes` instead of the whole `status_history`.',
  description:
    "In order events, `data.object` no longer embeds the order's `status_history` (up to 100 entries, repeated " +
    'in every event of the order). Instead `data.previous_attributes` holds the fields of the order that the ' +
    'event changed, with their values before it: `{"status": "arrived_at_pickup", "updated": 1767226200}` for a ' +
    'pickup, `courier` too for an assignment, `cancellation` for a cancellation. `order.created` and ' +
    '`webhook.test` carry none. `GET /partner/orders/{id}` still returns the whole `status_history`. Events ' +
    'written before this version existed carry `status` and `updated` only.',
  migration:
    'Where you read `data.object.status_history` from an event: the status the order left is ' +
    '`data.previous_attributes.status`; for the whole history, `GET /partner/orders/{id}`. Dropping stale ' +
    'events is unchanged: compare `data.object.updated` with what you hold.',
  resources: {
    event(event, { source }) {
      if (source === undefined) throw new Error('an event is rendered in an older version without its stored source');
      const { previous_attributes: _, ...data } = event.data as JsonObject;
      const history = (source as Source).envelope.data.object.status_history;
      return history === undefined
        ? { ...event, data }
        : { ...event, data: { ...data, object: { ...(data.object as JsonObject), status_history: history } } };
    },
  },
  openapi(document) {
    const data = document.components?.schemas?.Event?.properties?.data as JsonSchema | undefined;
    if (!data?.properties) return;
    delete data.properties.previous_attributes;
    const object = data.properties.object;
    if (object) {
      object.description =
        'The resource concerned, as its GET returns it (an order, with its whole status_history; for webhook.test the subscription)';
    }
  },
  examples: [
    {
      resource: 'event',
      source: { envelope: { ...STORED, data: { object: { ...ORDER, status_history: HISTORY } } }, previous_attributes: PREVIOUS },
      before: { ...STORED, data: { object: { ...ORDER, status_history: HISTORY } } },
      after: { ...STORED, data: { object: ORDER, previous_attributes: PREVIOUS } },
    },
    {
      resource: 'event',
      source: {
        envelope: {
          ...STORED,
          type: 'webhook.test',
          data: { object: { id: ORDER.id, object: 'webhook_subscription', status: 'enabled' } },
        },
      },
      before: { ...STORED, type: 'webhook.test', data: { object: { id: ORDER.id, object: 'webhook_subscription', status: 'enabled' } } },
      after: { ...STORED, type: 'webhook.test', data: { object: { id: ORDER.id, object: 'webhook_subscription', status: 'enabled' } } },
    },
  ],
});
