import { CREATED_EVENT, TRANSITIONS } from '../orders/state-machine';

export interface CatalogEntry {
  type: string;
  description: string;
}

// Every event type a subscription can filter on: the order events of the state machine, and the test event.
export const EVENT_CATALOG: readonly CatalogEntry[] = [
  CREATED_EVENT,
  ...TRANSITIONS.map((t) => ({ type: t.event, description: t.description })),
  { type: 'webhook.test', description: 'A synthetic event sent by POST /partner/webhooks/{id}/test to that subscription only.' },
];

export const EVENT_TYPES: ReadonlySet<string> = new Set(EVENT_CATALOG.map((e) => e.type));
