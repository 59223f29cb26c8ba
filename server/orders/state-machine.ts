// The order state machine: the one table every path that moves an order goes through (partner
// cancel, sandbox simulation, the admin CLI, the console).

export const ORDER_STATUSES = [
  'created',
  'courier_assigned',
  'arrived_at_pickup',
  'picked_up',
  'arrived_at_dropoff',
  'delivered',
  'returning',
  'returned',
  'cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const TERMINAL: ReadonlySet<OrderStatus> = new Set(['delivered', 'returned', 'cancelled']);
/** The partner may cancel until the courier has the goods. */
export const PARTNER_CANCELLABLE: ReadonlySet<OrderStatus> = new Set(['created', 'courier_assigned', 'arrived_at_pickup']);

export interface Transition {
  from: readonly OrderStatus[];
  to: OrderStatus;
  event: string;
  description: string;
}

const NON_TERMINAL = ORDER_STATUSES.filter((s) => !TERMINAL.has(s));

export const TRANSITIONS: readonly Transition[] = [
  { from: ['created'], to: 'courier_assigned', event: 'order.courier_assigned', description: 'A courier accepted the order.' },
  {
    from: ['courier_assigned'],
    to: 'created',
    event: 'order.courier_unassigned',
    description: 'The courier dropped the order; it is back to finding a courier.',
  },
  {
    from: ['courier_assigned'],
    to: 'arrived_at_pickup',
    event: 'order.arrived_at_pickup',
    description: 'The courier is at the pickup location.',
  },
  { from: ['courier_assigned', 'arrived_at_pickup'], to: 'picked_up', event: 'order.picked_up', description: 'The courier has the goods.' },
  {
    from: ['picked_up'],
    to: 'arrived_at_dropoff',
    event: 'order.arrived_at_dropoff',
    description: 'The courier is at the dropoff location.',
  },
  { from: ['picked_up', 'arrived_at_dropoff'], to: 'delivered', event: 'order.delivered', description: 'The goods were delivered.' },
  {
    from: ['picked_up', 'arrived_at_dropoff'],
    to: 'returning',
    event: 'order.return_started',
    description: 'The delivery failed; the courier is taking the goods back to pickup.',
  },
  { from: ['returning'], to: 'returned', event: 'order.returned', description: 'The goods are back at pickup.' },
  {
    from: NON_TERMINAL,
    to: 'cancelled',
    event: 'order.cancelled',
    description: 'The order was cancelled; `cancellation.reason` says why.',
  },
];

export const CREATED_EVENT = { type: 'order.created', description: 'An order was created from a quote.' };

export function findTransition(from: OrderStatus, to: OrderStatus): Transition | undefined {
  return TRANSITIONS.find((t) => t.to === to && t.from.includes(from));
}

/** The happy path, used by `simulate` without a status. */
export const HAPPY_PATH: readonly OrderStatus[] = [
  'created',
  'courier_assigned',
  'arrived_at_pickup',
  'picked_up',
  'arrived_at_dropoff',
  'delivered',
];

export function nextHappyStep(from: OrderStatus): OrderStatus | undefined {
  const i = HAPPY_PATH.indexOf(from);
  return i >= 0 ? HAPPY_PATH[i + 1] : undefined;
}
