import { defineChange, type JsonObject } from '../change';

const EVENT = {
  id: '01JGQ11M3N4P5Q6R7S8T9V0W1X',
  object: 'event',
  created: 1_767_227_400,
  livemode: false,
  type: 'webhook.test',
  data: {
    object: { id: '01JGQ10A2B3C4D5E6F7G8H9J0K', object: 'webhook_subscription', url: 'https://example.com/webhooks', status: 'enabled' },
  },
};

/** Events say which version they were rendered in, so a receiver on two subscriptions can tell the shapes apart. */
export const eventApiVersion = defineChange({
  version: '2026-11-26',
  name: 'event-api-version',
  title: 'Events name the version they are rendered in: `api_version`.',
  description:
    'Every event envelope carries `api_version`, the version it is rendered in: a delivery, the version of the ' +
    "subscription it goes to (its `api_version`); `GET /partner/events`, the request's version. Deliveries of " +
    'every version also carry the `X-Service-Version` header.',
  migration: 'Nothing to change, unless your receiver refuses unknown top-level fields of the envelope: let it accept `api_version`.',
  resources: {
    event: ({ api_version: _, ...event }: JsonObject) => event,
  },
  openapi(document) {
    const event = document.components?.schemas?.Event;
    if (!event?.properties) return;
    delete event.properties.api_version;
    event.required = event.required?.filter((name) => name !== 'api_version');
  },
  examples: [{ resource: 'event', before: EVENT, after: { ...EVENT, api_version: '2026-11-26' } }],
});
