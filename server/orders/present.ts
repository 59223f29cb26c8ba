import type { orders } from '@/db/schema';
import { livemode } from '../context';
import { unixSeconds } from '../time';
import { STATUS_HISTORY_CAP } from './history-cap';
import type { OrderResource } from './schemas';
import type { OrderStatus } from './state-machine';

export type OrderRow = typeof orders.$inferSelect;

export function presentOrder(row: OrderRow): OrderResource {
  return {
    id: row.id,
    object: 'order',
    livemode: livemode(row.environment),
    status: row.status as OrderStatus,
    quote_id: row.quoteId,
    external_id: row.externalId,
    pickup: row.pickup,
    dropoff: row.dropoff,
    fee: { amount: row.feeAmount, currency: row.feeCurrency },
    courier: row.courier,
    cancellation: row.cancellation,
    // The latest entries only: no new order passes the cap, but one that grew before it existed still holds more.
    status_history: row.statusHistory.slice(-STATUS_HISTORY_CAP) as OrderResource['status_history'],
    metadata: row.metadata,
    simulation: row.simulation ? { scenario: row.simulation.scenario, step_seconds: row.simulation.step_seconds } : null,
    created: unixSeconds(row.createdAt),
    updated: unixSeconds(row.updatedAt),
  };
}
