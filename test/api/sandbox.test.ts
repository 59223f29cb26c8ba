import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { jobContext } from '@/jobs/definition';
import { sandboxTimeoutJob } from '@/jobs/sandbox';
import { runScenarioStep } from '@/server/orders/scenario-step';
import { cancelStaleSandboxOrders } from '@/server/orders/timeout-sweep';
import type { OrderStatus } from '@/server/orders/state-machine';
import type { paths } from '@partner-delivery/client';
import * as api from '../support/partner-api';
import { waitFor } from '../support/poll';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// DESIGN.md section 4, sandbox: one step by hand (simulate), whole scenarios by scheduled jobs, and
// the timeout that cancels sandbox orders left open.

let svc: TestService;
let partner: TestPartner;
let live: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  partner = await createTestPartner(svc);
  live = await createTestPartner(svc, { environment: 'production' });
});

const newOrder = (who = partner, extra: Record<string, unknown> = {}) => api.newOrder(who, extra);
const getOrder = (id: string, who = partner) => api.getOrder(who, id);
/** POST /partner/orders/{id}/simulate: to `status`, or the next happy-path step. */
const simulate = (id: string, status?: OrderStatus, who = partner) =>
  api.clientFor(who).POST('/partner/orders/{id}/simulate', { params: { path: { id } }, body: status ? { status } : {} });
const cancel = (id: string, who = partner) =>
  api.clientFor(who).POST('/partner/orders/{id}/cancel', { params: { path: { id } }, body: {} });
const postOrder = (body: paths['/partner/orders']['post']['requestBody']['content']['application/json'], who = partner) =>
  api.clientFor(who).POST('/partner/orders', { body });

/** The order's events through the partner API, oldest first. */
async function eventsOf(
  id: string,
  who = partner,
): Promise<{ type: string; created: number; data: { object: Record<string, unknown> } }[]> {
  const res = await api.clientFor(who).GET('/partner/events', { params: { query: { order_id: id, limit: 100 } } });
  return api.expectStatus(200, res).data.reverse();
}

async function eventTypes(id: string, who = partner): Promise<string[]> {
  return (await eventsOf(id, who)).map((e) => e.type);
}

async function stepJobs(orderId: string): Promise<{ state: string; step: number }[]> {
  const rows = await svc.rt.db.execute<{ state: string; step: number }>(
    sql`select state, (data->>'step')::int as step from pgboss.job where name = 'sandbox.scenario-step' and data->>'order_id' = ${orderId} order by created_on`,
  );
  return Array.from(rows);
}

async function backdate(orderId: string, seconds: number) {
  await svc.rt.db.execute(sql`update orders set created_at = now() - make_interval(secs => ${seconds}) where id = ${orderId}`);
}

// First in the file, so that no order made by a later test is old enough to count as stale.
describe('sandbox timeout', () => {
  it('cancels sandbox orders still open after SANDBOX_ORDER_TIMEOUT_SECONDS (sandbox_timeout, source system), and nothing else', async () => {
    const stale = await newOrder();
    const staleReturning = await newOrder();
    for (const status of ['courier_assigned', 'picked_up', 'returning'] as const)
      api.expectStatus(200, await simulate(staleReturning.id, status));
    const fresh = await newOrder();
    const delivered = await newOrder();
    for (let i = 0; i < 5; i++) api.expectStatus(200, await simulate(delivered.id));
    const cancelled = await newOrder();
    api.expectStatus(200, await cancel(cancelled.id));
    const production = await newOrder(live);
    for (const o of [stale, staleReturning, delivered, cancelled]) await backdate(o.id, 600);
    await backdate(production.id, 600);
    await backdate(fresh.id, 30);
    const untouched = [fresh, delivered, cancelled].map((o) => o.id);
    const before = await Promise.all(untouched.map((id) => getOrder(id)));
    const beforeEvents = await Promise.all(untouched.map((id) => eventTypes(id)));

    const ctx = jobContext(svc.rt, 'sandbox.timeout-sweep');
    // With the default timeout (an hour) ten minutes is not stale.
    expect(svc.env.SANDBOX_ORDER_TIMEOUT_SECONDS).toBe(3600);
    expect(await cancelStaleSandboxOrders({ ctx })).toBe(0);
    expect((await getOrder(stale.id)).status).toBe('created');

    const sweep = { ...ctx, env: { ...ctx.env, SANDBOX_ORDER_TIMEOUT_SECONDS: 60 } };
    expect(await cancelStaleSandboxOrders({ ctx: sweep })).toBe(2);
    for (const o of [stale, staleReturning]) {
      const got = await getOrder(o.id);
      expect(got).toMatchObject({ status: 'cancelled', cancellation: { reason: 'sandbox_timeout', source: 'system' } });
      const events = await eventsOf(o.id);
      expect(events.at(-1)!.type).toBe('order.cancelled');
      // The order as GET returns it, without the history events no longer embed (since 2026-11-26).
      const { status_history: _, ...order } = got;
      expect(events.at(-1)!.data.object).toEqual(order);
      expect(events.filter((e) => e.type === 'order.cancelled')).toHaveLength(1);
    }
    expect(await Promise.all(untouched.map((id) => getOrder(id)))).toEqual(before);
    expect(await Promise.all(untouched.map((id) => eventTypes(id)))).toEqual(beforeEvents);
    const liveOrder = await getOrder(production.id, live);
    expect(liveOrder.status).toBe('created');
    expect(await eventTypes(production.id, live)).toEqual(['order.created']);

    // Idempotent: a second sweep finds nothing.
    expect(await cancelStaleSandboxOrders({ ctx: sweep })).toBe(0);
  });

  it('the sandbox.timeout-sweep job does the sweep (its schedule: test/jobs/schedules.test.ts)', async () => {
    const old = await newOrder();
    await backdate(old.id, 7200);
    await sandboxTimeoutJob.handle({}, svc.rt);
    expect(await getOrder(old.id)).toMatchObject({ status: 'cancelled', cancellation: { reason: 'sandbox_timeout', source: 'system' } });
    expect(await eventTypes(old.id)).toEqual(['order.created', 'order.cancelled']);
  });
});

describe('POST /partner/orders/{id}/simulate', () => {
  it('without a status walks the happy path one step at a time, with real events; a finished order is 409', async () => {
    const order = await newOrder();
    const path = ['courier_assigned', 'arrived_at_pickup', 'picked_up', 'arrived_at_dropoff', 'delivered'];
    for (const [i, status] of path.entries()) {
      // No body at all (raw: the document asks for one), and an empty object: both mean "the next step".
      const moved =
        i % 2 === 0
          ? (await api.call('POST', `/partner/orders/${order.id}/simulate`, partner)).body
          : api.expectStatus(200, await simulate(order.id));
      expect(moved.status).toBe(status);
      expect(moved).toEqual(await getOrder(order.id));
    }
    expect(await eventTypes(order.id)).toEqual([
      'order.created',
      'order.courier_assigned',
      'order.arrived_at_pickup',
      'order.picked_up',
      'order.arrived_at_dropoff',
      'order.delivered',
    ]);
    const done = await simulate(order.id);
    expect(done.response.status).toBe(409);
    expect(done.error?.error.code).toBe('invalid_state_transition');
    const explicit = await simulate(order.id, 'returning');
    expect(explicit.response.status).toBe(409);
    expect(explicit.error?.error.code).toBe('invalid_state_transition');
    expect((await eventTypes(order.id)).length).toBe(6);
  });

  it('with a status moves there when the state table allows it, else 409 invalid_state_transition', async () => {
    const order = await newOrder();
    for (const status of ['delivered', 'picked_up', 'returned', 'created'] as const) {
      const res = await simulate(order.id, status);
      expect(res.response.status, status).toBe(409);
      expect(res.error?.error.code).toBe('invalid_state_transition');
    }
    expect(await eventTypes(order.id)).toEqual(['order.created']);
    for (const [status, event] of [
      ['courier_assigned', 'order.courier_assigned'],
      ['created', 'order.courier_unassigned'],
      ['courier_assigned', 'order.courier_assigned'],
      ['picked_up', 'order.picked_up'],
      ['returning', 'order.return_started'],
      ['returned', 'order.returned'],
    ] as const) {
      expect(api.expectStatus(200, await simulate(order.id, status)).status).toBe(status);
      expect((await eventTypes(order.id)).at(-1)).toBe(event);
    }
    const terminal = await simulate(order.id, 'cancelled');
    expect(terminal.response.status).toBe(409);
    expect(terminal.error?.error.code).toBe('invalid_state_transition');
  });

  it('simulating a cancellation cancels as the courier', async () => {
    const order = await newOrder();
    expect(api.expectStatus(200, await simulate(order.id, 'cancelled'))).toMatchObject({
      status: 'cancelled',
      cancellation: { source: 'courier' },
    });
  });

  it('rejects an unknown status with 400', async () => {
    const order = await newOrder();
    const res = await api.call('POST', `/partner/orders/${order.id}/simulate`, partner, { status: 'flying' });
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('status');
  });

  it('production credentials get 403 sandbox_only, and the order is untouched', async () => {
    const order = await newOrder(live);
    for (const status of [undefined, 'courier_assigned'] as const) {
      const res = await simulate(order.id, status, live);
      expect(res.response.status).toBe(403);
      expect(res.error?.error).toMatchObject({ type: 'permission_error', code: 'sandbox_only' });
    }
    expect((await getOrder(order.id, live)).status).toBe('created');
    expect(await eventTypes(order.id, live)).toEqual(['order.created']);
  });

  it("another partner's order, or an unknown one, is 404 and untouched", async () => {
    const order = await newOrder();
    const other = await createTestPartner(svc);
    const res = await simulate(order.id, undefined, other);
    expect(res.response.status).toBe(404);
    expect(res.error?.error.code).toBe('resource_missing');
    // Raw: ids that are not ones (the client would encode '%00').
    for (const id of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope', '%00', order.id.toLowerCase()]) {
      const unknown = await api.call('POST', `/partner/orders/${id}/simulate`, partner);
      expect(unknown.status, id).toBe(404);
      expect(unknown.body.error.code).toBe('resource_missing');
    }
    expect(await getOrder(order.id)).toEqual(order);
    expect(await eventTypes(order.id)).toEqual(['order.created']);
  });
});

describe('simulation on order creation', () => {
  const SCENARIOS: Record<string, { events: string[]; status: string }> = {
    happy_path: {
      status: 'delivered',
      events: [
        'order.created',
        'order.courier_assigned',
        'order.arrived_at_pickup',
        'order.picked_up',
        'order.arrived_at_dropoff',
        'order.delivered',
      ],
    },
    courier_unassigned: {
      status: 'delivered',
      events: [
        'order.created',
        'order.courier_assigned',
        'order.courier_unassigned',
        'order.courier_assigned',
        'order.arrived_at_pickup',
        'order.picked_up',
        'order.arrived_at_dropoff',
        'order.delivered',
      ],
    },
    return_to_pickup: {
      status: 'returned',
      events: [
        'order.created',
        'order.courier_assigned',
        'order.arrived_at_pickup',
        'order.picked_up',
        'order.arrived_at_dropoff',
        'order.return_started',
        'order.returned',
      ],
    },
    cancelled_by_courier: {
      status: 'cancelled',
      events: ['order.created', 'order.courier_assigned', 'order.arrived_at_pickup', 'order.cancelled'],
    },
  };

  it.concurrent.for(Object.keys(SCENARIOS))('%s runs by itself, one step per step_seconds, to its end', async (scenario, { expect }) => {
    const expected = SCENARIOS[scenario]!;
    const order = await newOrder(partner, { simulation: { scenario, step_seconds: 1 } });
    expect(order).toMatchObject({ status: 'created', simulation: { scenario, step_seconds: 1 } });
    const events = await waitFor(`the ${expected.events.length} events of ${scenario}`, () => eventsOf(order.id), {
      until: (es) => es.length >= expected.events.length,
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect(events.map((e) => e.type)).toEqual(expected.events);
    const final = await getOrder(order.id);
    expect(final.status).toBe(expected.status);
    const { status_history: _, ...finalOrder } = final;
    expect(events.at(-1)!.data.object).toEqual(finalOrder);
    expect(final.status_history.map((h: { status: string }) => h.status)).toEqual(events.map((e) => e.data.object.status));
    // Each step waits step_seconds after the previous one.
    expect(events.at(-1)!.created - events[0]!.created).toBeGreaterThanOrEqual(expected.events.length - 2);
    if (scenario === 'cancelled_by_courier') expect(final.cancellation).toEqual({ reason: expect.any(String), source: 'courier' });
    // Every step's job completed; none failed, none left over.
    const jobs = await waitFor('every step job completed', () => stepJobs(order.id), {
      until: (js) => js.every((j) => j.state === 'completed'),
      timeoutMs: 5_000,
      intervalMs: 200,
    });
    expect(jobs.map((j) => [j.step, j.state])).toEqual(expected.events.slice(1).map((_, i) => [i, 'completed']));
  });

  it.concurrent('many scenarios at once keep their pace', async ({ expect }) => {
    // 15 orders of five steps each, a step a second: 75 steps due within about five seconds.
    const orders = await Promise.all(
      Array.from({ length: 15 }, () => newOrder(partner, { simulation: { scenario: 'happy_path', step_seconds: 1 } })),
    );
    const started = Date.now();
    const statuses = await waitFor(
      'all 15 orders delivered',
      () => Promise.all(orders.map(async (o) => (await getOrder(o.id)).status as string)),
      {
        until: (ss) => ss.every((s) => s === 'delivered'),
        timeoutMs: 25_000,
        intervalMs: 200,
      },
    );
    expect(statuses.every((s) => s === 'delivered')).toBe(true);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it.concurrent('a scenario the partner cancels before pickup stops quietly', async ({ expect }) => {
    const order = await newOrder(partner, { simulation: { scenario: 'happy_path', step_seconds: 1 } });
    api.expectStatus(200, await cancel(order.id));
    // The step that was due runs, finds the order cancelled, and schedules nothing more.
    const jobs = await waitFor('the due step job to finish', () => stepJobs(order.id), {
      until: (js) => js.length > 0 && js.every((j) => j.state === 'completed' || j.state === 'failed'),
      timeoutMs: 15_000,
      intervalMs: 200,
    });
    expect(jobs).toEqual([{ step: 0, state: 'completed' }]);
    expect(await eventTypes(order.id)).toEqual(['order.created', 'order.cancelled']);
    const final = await getOrder(order.id);
    expect(final).toMatchObject({ status: 'cancelled', cancellation: { source: 'partner' } });
    // Nothing further is scheduled, so nothing can happen to this order any more.
    const [row] = await svc.rt.db.execute<{ next_step: number }>(
      sql`select (simulation->>'next_step')::int as next_step from orders where id = ${order.id}`,
    );
    expect(row!.next_step).toBe(-1);
    const failed = await svc.rt.db.execute(
      sql`select id from pgboss.job where name = 'sandbox.scenario-step' and state in ('failed', 'retry')`,
    );
    expect(failed).toHaveLength(0);
  });

  it("a step commits with its next step's job or not at all; a duplicate step job does nothing", async () => {
    // step_seconds 300: the scheduled step 0 stays far in the future, and this test runs it by hand.
    const order = await newOrder(partner, { simulation: { scenario: 'happy_path', step_seconds: 300 } });
    const ctx = jobContext(svc.rt, 'sandbox.scenario-step');
    const boss = svc.rt.boss!;
    const send = boss.send.bind(boss) as (...args: unknown[]) => Promise<string | null>;
    // pg-boss answers null when it inserted nothing (e.g. a missing queue); only this order's sends fail.
    const stub = vi
      .spyOn(boss, 'send')
      .mockImplementation((async (...args: unknown[]) =>
        (args[1] as { order_id?: string }).order_id === order.id ? null : send(...args)) as typeof boss.send);
    try {
      await expect(runScenarioStep({ ctx, input: { orderId: order.id, step: 0 } })).rejects.toThrow(/could not enqueue/);
    } finally {
      stub.mockRestore();
    }
    expect(await getOrder(order.id)).toEqual(order);
    expect(await eventTypes(order.id)).toEqual(['order.created']);

    // The job's retry succeeds, with the next step scheduled in the same transaction.
    expect(await runScenarioStep({ ctx, input: { orderId: order.id, step: 0 } })).toBe('moved');
    expect((await getOrder(order.id)).status).toBe('courier_assigned');
    expect((await stepJobs(order.id)).map((j) => j.step)).toEqual([0, 1]);
    // Step 0 again (a retried or duplicate job) is stale: no move, no event, nothing scheduled.
    expect(await runScenarioStep({ ctx, input: { orderId: order.id, step: 0 } })).toBe('stale');
    expect(await eventTypes(order.id)).toEqual(['order.created', 'order.courier_assigned']);
    expect((await stepJobs(order.id)).map((j) => j.step)).toEqual([0, 1]);
  });

  it('a step on an order whose history the partner filled by hand stops the scenario quietly: no move, no retry', async () => {
    const order = await newOrder(partner, { simulation: { scenario: 'happy_path', step_seconds: 300 } });
    // 99 entries: the most before the cap (100), the last kept for ending the order.
    const history = Array.from({ length: 99 }, (_, i) => ({ status: i % 2 ? 'courier_assigned' : 'created', at: order.created }));
    await svc.rt.db.execute(sql`update orders set status_history = ${JSON.stringify(history)}::jsonb where id = ${order.id}`);
    const refused = await simulate(order.id, 'courier_assigned');
    expect(refused.response.status).toBe(409);
    expect(refused.error?.error).toMatchObject({ code: 'order_history_full', limit: 100 });
    const ctx = jobContext(svc.rt, 'sandbox.scenario-step');
    expect(await runScenarioStep({ ctx, input: { orderId: order.id, step: 0 } })).toBe('stopped');
    expect(await eventTypes(order.id)).toEqual(['order.created']);
    expect((await getOrder(order.id)).status).toBe('created');
    // Ending it is still accepted: a cancel is the 100th entry.
    expect(api.expectStatus(200, await cancel(order.id)).status_history).toHaveLength(100);
  });

  it('production credentials cannot start a simulation (403 sandbox_only), and the quote stays usable', async () => {
    const quoteId = await api.newQuote(live);
    const res = await postOrder({ quote_id: quoteId, simulation: { scenario: 'happy_path', step_seconds: 1 } }, live);
    expect(res.response.status).toBe(403);
    expect(res.error?.error).toMatchObject({ type: 'permission_error', code: 'sandbox_only' });
    api.expectStatus(201, await postOrder({ quote_id: quoteId }, live));
  });

  it.each([
    [{ scenario: 'happy_path', step_seconds: 0 }, 'simulation.step_seconds'],
    [{ scenario: 'happy_path', step_seconds: 301 }, 'simulation.step_seconds'],
    [{ scenario: 'happy_path', step_seconds: 1.5 }, 'simulation.step_seconds'],
    [{ scenario: 'moonwalk', step_seconds: 1 }, 'simulation.scenario'],
    [{ step_seconds: 1 }, 'simulation.scenario'],
    [{ scenario: 'happy_path', surprise: 1 }, 'simulation.surprise'],
  ])('rejects simulation %j with 400 naming %s', async (simulation, param) => {
    const quoteId = await api.newQuote(partner);
    const res = await api.call('POST', '/partner/orders', partner, { quote_id: quoteId, simulation });
    expect(res.status).toBe(400);
    expect(res.body.error.errors.map((e: { param: string }) => e.param)).toContain(param);
    // Nothing was created: the quote is still unused.
    api.expectStatus(201, await postOrder({ quote_id: quoteId }));
  });

  it('step_seconds defaults to 5', async () => {
    const order = await newOrder(partner, { simulation: { scenario: 'happy_path' } });
    expect(order.simulation).toEqual({ scenario: 'happy_path', step_seconds: 5 });
    expect(await getOrder(order.id)).toEqual(order);
  });
});
