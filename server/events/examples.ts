import { changedAttributes } from '../orders/move';
import type { OrderResource } from '../orders/schemas';
import { CREATED_EVENT, TRANSITIONS, type OrderStatus } from '../orders/state-machine';
import { OPERATIONAL_EVENT_TYPES } from './catalog';
import { LATEST_VERSION } from '../versions/registry';
import type { StoredEvent } from './present';

const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z, so examples are stable

function exampleOrder(status: OrderStatus, history: OrderStatus[]): OrderResource {
  const assigned = !['created', 'cancelled'].includes(status);
  return {
    id: '01JGQ0Z8X4R6W2T1V9M3K5H7NB',
    object: 'order',
    livemode: false,
    status,
    quote_id: '01JGQ0YZB2C8D4E6F0G1H3J5KM',
    external_id: 'order-1042',
    pickup: { lat: 40.7484, lng: -73.9857, contact: { name: 'Front desk', phone: '+12125550100' }, instructions: 'Ring twice' },
    dropoff: { lat: 40.758, lng: -73.9855, contact: { name: 'Ada Lovelace', phone: '+12125550199' }, instructions: null },
    fee: { amount: 629, currency: 'USD' },
    courier: assigned ? { id: 'courier_3k5h7nb', name: 'Robin Courier', phone: '+15555550100', vehicle: 'bicycle' } : null,
    cancellation: status === 'cancelled' ? { reason: 'requested_by_partner', source: 'partner' } : null,
    status_history: history.map((s, i) => ({ status: s, at: T0 + i * 300 })),
    metadata: {},
    simulation: null,
    created: T0,
    updated: T0 + (history.length - 1) * 300,
  };
}

const PATH_TO: Record<string, OrderStatus[]> = {
  'order.created': ['created'],
  'order.courier_assigned': ['created', 'courier_assigned'],
  'order.courier_unassigned': ['created', 'courier_assigned', 'created'],
  'order.arrived_at_pickup': ['created', 'courier_assigned', 'arrived_at_pickup'],
  'order.picked_up': ['created', 'courier_assigned', 'arrived_at_pickup', 'picked_up'],
  'order.arrived_at_dropoff': ['created', 'courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff'],
  'order.delivered': ['created', 'courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff', 'delivered'],
  'order.return_started': ['created', 'courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff', 'returning'],
  'order.returned': ['created', 'courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff', 'returning', 'returned'],
  'order.cancelled': ['created', 'cancelled'],
};

/** An example event of each catalog type as it would be stored, built from the same presenters' shapes. */
export function exampleEvent(type: string): StoredEvent {
  const history = PATH_TO[type];
  const object = history
    ? exampleOrder(history[history.length - 1]!, history)
    : OPERATIONAL_EVENT_TYPES.has(type)
      ? exampleFailingSubscription(type)
      : { id: '01JGQ10A2B3C4D5E6F7G8H9J0K', object: 'webhook_subscription', url: 'https://example.com/webhooks', status: 'enabled' };
  const before = history && history.length > 1 ? exampleOrder(history.at(-2)!, history.slice(0, -1)) : undefined;
  return {
    envelope: { id: '01JGQ11M3N4P5Q6R7S8T9V0W1X', object: 'event', created: T0 + 1800, livemode: false, type, data: { object } },
    previous_attributes: before ? changedAttributes(before, object as OrderResource) : null,
  };
}

/** The subscription an operational event is about, as the partner API shows it, with its failing streak (server/notices/streak.ts). */
function exampleFailingSubscription(type: string) {
  const disabled = type === 'webhook.disabled';
  const recovered = type === 'webhook.recovered';
  const started = T0 - 3 * 3600;
  return {
    id: '01JGQ10A2B3C4D5E6F7G8H9J0K',
    object: 'webhook_subscription',
    livemode: false,
    url: 'https://example.com/webhooks',
    description: 'orders',
    event_filters: [],
    api_version: LATEST_VERSION,
    status: disabled ? 'disabled' : 'enabled',
    disabled_reason: disabled ? 'too_many_failures' : null,
    created: T0 - 86_400,
    updated: disabled ? T0 + 1800 : T0 - 86_400,
    failure_streak: {
      stage: disabled ? 'disabled' : recovered ? 'recovered' : 'failing',
      started,
      failed_attempts: 42,
      last_failure: { at: T0 + 1700, error_kind: 'http_status', response_status: 503 },
      disables_after: disabled || recovered ? null : started + 120 * 3600,
      ended: disabled || recovered ? T0 + 1800 : null,
    },
  };
}

// Guard: every state-machine event has an example history.
for (const t of [CREATED_EVENT.type, ...TRANSITIONS.map((x) => x.event)]) {
  if (!PATH_TO[t]) throw new Error(`no example for ${t}`);
}
