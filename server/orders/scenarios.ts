import type { CancellationJson } from '@/db/schema';
import type { OrderStatus } from './state-machine';

// Sandbox scenarios: the steps a robot courier takes after `created`, one every step_seconds.
export const SCENARIO_STEPS: Record<string, readonly OrderStatus[]> = {
  happy_path: ['courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff', 'delivered'],
  courier_unassigned: [
    'courier_assigned',
    'created',
    'courier_assigned',
    'arrived_at_pickup',
    'picked_up',
    'arrived_at_dropoff',
    'delivered',
  ],
  return_to_pickup: ['courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff', 'returning', 'returned'],
  cancelled_by_courier: ['courier_assigned', 'arrived_at_pickup', 'cancelled'],
};

export const COURIER_CANCELLATION: CancellationJson = { reason: 'cancelled_by_courier', source: 'courier' };
