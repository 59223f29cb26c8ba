import type { CancellationJson, SimulationJson } from '@/db/schema';
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

/**
 * Whether a sandbox scenario still moves the order by itself: steps are left (runScenarioStep sets next_step
 * past the last when it finishes, and -1 when a step was refused and the scenario stopped).
 */
export function scenarioRunning(simulation: SimulationJson | null): boolean {
  if (!simulation) return false;
  return simulation.next_step >= 0 && simulation.next_step < (SCENARIO_STEPS[simulation.scenario]?.length ?? 0);
}
