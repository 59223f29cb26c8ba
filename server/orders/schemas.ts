import { z } from 'zod';
import { createdRange, listOf, listQuery, money, ulidString, unixTime } from '../common-schemas';
import { ORDER_STATUSES } from './state-machine';

const contact = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    phone: z.string().regex(/^\+[1-9]\d{1,14}$/, 'must be an E.164 phone number such as +14155550123'),
  })
  .meta({ id: 'Contact' });

const stopInput = z.strictObject({
  contact: contact.optional(),
  instructions: z.string().max(1000).optional(),
});

const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 20, 'at most 20 keys')
  .meta({ id: 'Metadata', description: 'Up to 20 string keys of your own' });

export const SCENARIOS = ['happy_path', 'courier_unassigned', 'return_to_pickup', 'cancelled_by_courier'] as const;

export const createOrderInput = z
  .strictObject({
    quote_id: ulidString,
    external_id: z
      .string()
      .regex(/^[A-Za-z0-9\-._~]{1,64}$/, 'must be 1 to 64 characters of A-Z a-z 0-9 - . _ ~')
      .optional()
      .meta({ description: 'Your own reference; unique per partner and environment' }),
    pickup: stopInput.optional(),
    dropoff: stopInput.optional(),
    metadata: metadata.optional(),
    simulation: z
      .strictObject({
        scenario: z.enum(SCENARIOS),
        step_seconds: z.number().int().min(1).max(300).default(5),
      })
      .optional()
      .meta({ description: 'Sandbox only: run this scenario by itself, one step every step_seconds' }),
  })
  .meta({ id: 'OrderRequest' });
export type CreateOrderInput = z.infer<typeof createOrderInput>;

const stop = z
  .object({
    lat: z.number(),
    lng: z.number(),
    contact: contact.nullable(),
    instructions: z.string().nullable(),
  })
  .meta({ id: 'Stop' });

export const orderStatus = z.enum(ORDER_STATUSES).meta({ id: 'OrderStatus' });

export const orderResource = z
  .object({
    id: ulidString,
    object: z.literal('order'),
    livemode: z.boolean(),
    status: orderStatus,
    quote_id: ulidString,
    external_id: z.string().nullable(),
    pickup: stop,
    dropoff: stop,
    fee: money,
    courier: z.object({ id: z.string(), name: z.string(), phone: z.string(), vehicle: z.string() }).nullable(),
    cancellation: z.object({ reason: z.string(), source: z.enum(['partner', 'courier', 'operator', 'system']) }).nullable(),
    status_history: z.array(z.object({ status: orderStatus, at: unixTime })),
    metadata: z.record(z.string(), z.string()),
    simulation: z.object({ scenario: z.string(), step_seconds: z.number().int() }).nullable(),
    created: unixTime,
    updated: unixTime,
  })
  .meta({ id: 'Order' });
export type OrderResource = z.infer<typeof orderResource>;

export const orderList = listOf(orderResource, 'OrderList');

export const listOrdersQuery = z.strictObject({
  ...listQuery,
  ...createdRange,
  status: orderStatus.optional(),
  external_id: z.string().max(64).optional(),
});
export type ListOrdersQuery = z.infer<typeof listOrdersQuery>;

export const cancelOrderInput = z
  .strictObject({
    reason: z.string().trim().min(1).max(500).optional().meta({ description: 'Free text; defaults to requested_by_partner' }),
  })
  .meta({ id: 'CancelOrderRequest' });

export const simulateOrderInput = z
  .strictObject({ status: orderStatus.optional().meta({ description: 'The status to move to; omitted: the next happy-path step' }) })
  .meta({ id: 'SimulateOrderRequest' });
