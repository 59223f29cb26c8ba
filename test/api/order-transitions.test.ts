import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { ConflictError } from '@/server/errors';
import { advanceOrder } from '@/server/orders/advance';
import { ORDER_STATUSES, type OrderStatus } from '@/server/orders/state-machine';
import { clientFor, getOrder, newOrder as newPartnerOrder } from '../support/partner-api';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// DESIGN.md section 4, written out independently of server/orders/state-machine.ts.
const LEGAL: Record<OrderStatus, Partial<Record<OrderStatus, string>>> = {
  created: { courier_assigned: 'order.courier_assigned', cancelled: 'order.cancelled' },
  courier_assigned: {
    created: 'order.courier_unassigned',
    arrived_at_pickup: 'order.arrived_at_pickup',
    picked_up: 'order.picked_up',
    cancelled: 'order.cancelled',
  },
  arrived_at_pickup: { picked_up: 'order.picked_up', cancelled: 'order.cancelled' },
  picked_up: {
    arrived_at_dropoff: 'order.arrived_at_dropoff',
    delivered: 'order.delivered',
    returning: 'order.return_started',
    cancelled: 'order.cancelled',
  },
  arrived_at_dropoff: { delivered: 'order.delivered', returning: 'order.return_started', cancelled: 'order.cancelled' },
  returning: { returned: 'order.returned', cancelled: 'order.cancelled' },
  delivered: {},
  returned: {},
  cancelled: {},
};

let svc: TestService;
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' });
  partner = await createTestPartner(svc);
});

async function newOrder(status: OrderStatus = 'created'): Promise<string> {
  const order = await newPartnerOrder(partner);
  if (status !== 'created') await svc.rt.db.execute(sql`update orders set status = ${status} where id = ${order.id}`);
  return order.id;
}

async function eventTypes(orderId: string): Promise<string[]> {
  const rows = await svc.rt.db.execute<{ type: string }>(sql`select type from events where object_id = ${orderId} order by id`);
  return rows.map((r) => r.type);
}

describe('the order state machine', () => {
  const cases = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => [from, to] as const));

  it.each(cases)('%s → %s: legal moves emit exactly their event, illegal ones are 409 and emit nothing', async (from, to) => {
    const id = await newOrder(from);
    const before = await eventTypes(id);
    const expected = LEGAL[from][to];
    const move = advanceOrder({ ctx: cliContext(svc.rt), input: { orderId: id, status: to } });
    if (expected) {
      const order = await move;
      expect(order.status).toBe(to);
      expect(order.status_history.at(-1)!.status).toBe(to);
      expect(await eventTypes(id)).toEqual([...before, expected]);
    } else {
      await expect(move).rejects.toMatchObject({ code: 'invalid_state_transition' });
      await expect(move).rejects.toBeInstanceOf(ConflictError);
      expect(await eventTypes(id)).toEqual(before);
    }
  });

  it('a courier assignment sets the courier; an unassignment clears it', async () => {
    const id = await newOrder();
    const assigned = await advanceOrder({ ctx: cliContext(svc.rt), input: { orderId: id, status: 'courier_assigned' } });
    expect(assigned.courier).toMatchObject({ name: expect.any(String), phone: expect.stringMatching(/^\+/) });
    const unassigned = await advanceOrder({ ctx: cliContext(svc.rt), input: { orderId: id, status: 'created' } });
    expect(unassigned.courier).toBeNull();
  });
});

describe('concurrent moves of one order', () => {
  it('a partner cancel racing a pickup: exactly one wins, the other is 409, one event per accepted move', async () => {
    for (let round = 0; round < 8; round++) {
      const id = await newOrder('arrived_at_pickup');
      const before = (await eventTypes(id)).length;
      const [cancel, pickup] = await Promise.all([
        clientFor(partner).POST('/partner/orders/{id}/cancel', { params: { path: { id } }, body: {} }),
        advanceOrder({ ctx: cliContext(svc.rt), input: { orderId: id, status: 'picked_up' } }).then(
          () => 'ok',
          (e: unknown) => (e instanceof ConflictError ? e.code : 'error'),
        ),
      ]);
      const cancelled = cancel.response.status === 200;
      expect([cancelled, pickup === 'ok'].filter(Boolean).length).toBe(1);
      if (cancelled) expect(pickup).toBe('invalid_state_transition');
      else expect(cancel.error?.error.code).toBe('cancel_not_allowed');
      const after = await eventTypes(id);
      expect(after.length).toBe(before + 1);
      expect(after.at(-1)).toBe(cancelled ? 'order.cancelled' : 'order.picked_up');
    }
  });

  it('the same move twice at once: one 200, one 409 invalid_state_transition', async () => {
    const id = await newOrder('courier_assigned');
    const pickUp = () =>
      clientFor(partner).POST('/partner/orders/{id}/simulate', { params: { path: { id } }, body: { status: 'picked_up' } });
    const results = await Promise.all([pickUp(), pickUp()]);
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 409]);
    expect((await eventTypes(id)).filter((t) => t === 'order.picked_up')).toHaveLength(1);
  });

  it('past 99 history entries only a move that ends the order is accepted (409 order_history_full), for operators too', async () => {
    const ctx = cliContext(svc.rt);
    const id = await newOrder();
    const history = Array.from({ length: 99 }, (_, i) => ({ status: i % 2 ? 'courier_assigned' : 'created', at: 1_795_000_000 + i }));
    await svc.rt.db.execute(sql`update orders set status_history = ${JSON.stringify(history)}::jsonb where id = ${id}`);
    const move = advanceOrder({ ctx, input: { orderId: id, status: 'courier_assigned' } });
    await expect(move).rejects.toMatchObject({ code: 'order_history_full', details: { extra: { limit: 100 } } });
    await expect(move).rejects.toBeInstanceOf(ConflictError);
    expect(await eventTypes(id)).toEqual(['order.created']);
    const ended = await advanceOrder({ ctx, input: { orderId: id, status: 'cancelled' } });
    expect(ended.status_history).toHaveLength(100);
    expect(await eventTypes(id)).toEqual(['order.created', 'order.cancelled']);
  });

  it('an order that grew past the cap before it existed shows its latest 100 entries, and can still be ended', async () => {
    const id = await newOrder();
    const history = Array.from({ length: 150 }, (_, i) => ({ status: i % 2 ? 'courier_assigned' : 'created', at: 1_795_000_000 + i }));
    await svc.rt.db.execute(sql`update orders set status_history = ${JSON.stringify(history)}::jsonb where id = ${id}`);
    const ended = await advanceOrder({ ctx: cliContext(svc.rt), input: { orderId: id, status: 'cancelled', reason: 'stuck' } });
    expect(ended.status_history).toHaveLength(100);
    expect(ended.status_history[0]).toEqual(history[51]);
    expect(ended.status_history.at(-1)!.status).toBe('cancelled');
    expect(await getOrder(partner, id)).toEqual(ended);
  });

  it("an operator's cancellation reason is at most 500 characters, like a partner's", async () => {
    const id = await newOrder();
    const move = advanceOrder({ ctx: cliContext(svc.rt), input: { orderId: id, status: 'cancelled', reason: 'r'.repeat(501) } });
    await expect(move).rejects.toMatchObject({ code: 'parameter_invalid', details: { param: 'reason' } });
    expect(await eventTypes(id)).toEqual(['order.created']);
  });
});
