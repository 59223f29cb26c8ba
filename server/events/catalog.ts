import { CREATED_EVENT, TRANSITIONS } from '../orders/state-machine';

export interface CatalogEntry {
  type: string;
  description: string;
}

/**
 * Events about the partner's own webhook subscriptions (server/notices/): delivered only to the
 * subscriptions that name them in their event_filters, never to the one they are about.
 */
export const OPERATIONAL_EVENTS: readonly CatalogEntry[] = [
  {
    type: 'webhook.failing',
    description:
      'One of your subscriptions has failed every attempt for an hour (WEBHOOK_NOTICE_FAILING_AFTER_SECONDS), and again at 50 % and 90 % of the time after which it is disabled. data.object is that subscription, with failure_streak. Sent only to subscriptions that list it in event_filters, never to the failing one.',
  },
  {
    type: 'webhook.disabled',
    description:
      'One of your subscriptions was disabled by its failures: disabled_reason gone (it answered 410) or too_many_failures. Sent only to subscriptions that list it in event_filters.',
  },
  {
    type: 'webhook.recovered',
    description:
      'A subscription you were told is failing answered 2xx again: its failing streak ended. Sent only to subscriptions that list it in event_filters.',
  },
];

// Every event type a subscription can filter on: the order events of the state machine, the test event,
// and the operational events.
export const EVENT_CATALOG: readonly CatalogEntry[] = [
  CREATED_EVENT,
  ...TRANSITIONS.map((t) => ({ type: t.event, description: t.description })),
  { type: 'webhook.test', description: 'A synthetic event sent by POST /partner/webhooks/{id}/test to that subscription only.' },
  ...OPERATIONAL_EVENTS,
];

export const EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_CATALOG.map((e) => e.type));
export const OPERATIONAL_EVENT_TYPES: ReadonlySet<string> = new Set(OPERATIONAL_EVENTS.map((e) => e.type));

/**
 * The types a subscription receives: its filters, or (empty) the whole catalog but the operational
 * events. Decided: those must be asked for by name, so an endpoint that takes "everything" is not sent
 * news of its siblings' outages it never said it could handle (Svix's operational webhooks likewise
 * go only to endpoints made for them).
 */
export function acceptedTypes(filters: readonly string[]): string[] {
  return filters.length > 0 ? [...filters] : EVENT_CATALOG.filter((e) => !OPERATIONAL_EVENT_TYPES.has(e.type)).map((e) => e.type);
}

/**
 * Whether an event goes to a subscription of its partner and environment: webhook.test only to the
 * subscription it was sent for; an operational event to those whose filters name it, except the one it is
 * about; anything else to those whose filters accept its type. Replays select with the same rule in SQL
 * (server/replays/select.ts).
 */
export function isAudience(
  event: { type: string; objectId: string },
  subscription: { id: string; eventFilters: readonly string[] },
): boolean {
  if (event.type === 'webhook.test') return subscription.id === event.objectId;
  if (OPERATIONAL_EVENT_TYPES.has(event.type) && subscription.id === event.objectId) return false;
  return acceptedTypes(subscription.eventFilters).includes(event.type);
}
