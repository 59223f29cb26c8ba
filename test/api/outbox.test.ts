import { sql } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobContext } from '@/jobs/definition';
import type { EventEnvelope } from '@/db/schema';
import { withTransaction } from '@/server/context';
import { moveOrder } from '@/server/orders/move';
import type { OrderStatus } from '@/server/orders/state-machine';
import { FIRST_VERSION } from '@/server/versions/registry';
import * as api from '../support/partner-api';
import { waitFor } from '../support/poll';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// DESIGN.md section 2: every observable change is written with its event row and the pg-boss job
// that delivers it, in one transaction (the transactional outbox).

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

let svc: TestService;
let partner: TestPartner;
let live: TestPartner;

beforeAll(async () => {
  svc = await startTestService();
  partner = await createTestPartner(svc);
  live = await createTestPartner(svc, { environment: 'production' });
});

afterEach(() => {
  vi.restoreAllMocks();
});

const newOrder = (who = partner) => api.newOrder(who);
const getOrder = (id: string, who = partner) => api.getOrder(who, id);
/** POST /partner/orders/{id}/simulate: to `status`, or the next happy-path step. */
const simulate = (id: string, status?: OrderStatus, who = partner) =>
  api.clientFor(who).POST('/partner/orders/{id}/simulate', { params: { path: { id } }, body: status ? { status } : {} });

type EventRow = {
  id: string;
  type: string;
  partner_id: string;
  environment: string;
  object_id: string;
  envelope: EventEnvelope;
  created_unix: number;
};

async function eventRows(orderId: string): Promise<EventRow[]> {
  const rows = await svc.rt.db.execute<EventRow>(
    sql`select id, type, partner_id, environment, object_id, envelope, floor(extract(epoch from created_at))::int as created_unix from events where object_id = ${orderId} order by id`,
  );
  return Array.from(rows);
}

type JobRow = {
  id: string;
  name: string;
  data: unknown;
  state: string;
};

async function fanOutJobs(eventIds: string[]): Promise<JobRow[]> {
  if (eventIds.length === 0) return [];
  const rows = await svc.rt.db.execute<JobRow>(
    sql`select id, name, data, state from pgboss.job where name = 'webhooks.fanout' and data->>'event_id' in ${eventIds}`,
  );
  return Array.from(rows);
}

async function countFanOutJobs(): Promise<number> {
  const [row] = await svc.rt.db.execute<{ n: number }>(sql`select count(*)::int as n from pgboss.job where name = 'webhooks.fanout'`);
  return row!.n;
}

async function orderRow(id: string) {
  const [row] = await svc.rt.db.execute<{ status: string; status_history: { status: string; at: number }[] }>(
    sql`select status, status_history from orders where id = ${id}`,
  );
  return row!;
}

/** The envelope of spec part 2, field by field, with nothing else in it. */
function expectEnvelope(envelope: EventEnvelope, type: string, object: unknown, livemode: boolean) {
  expect(Object.keys(envelope).sort()).toEqual(['created', 'data', 'id', 'livemode', 'object', 'type']);
  expect(envelope.id).toMatch(ULID);
  expect(envelope.object).toBe('event');
  expect(Number.isInteger(envelope.created)).toBe(true);
  expect(envelope.livemode).toBe(livemode);
  expect(envelope.type).toBe(type);
  expect(Object.keys(envelope.data)).toEqual(['object']);
  expect(envelope.data.object).toEqual(object);
}

describe('the event outbox', () => {
  it('order creation writes the order, its history, one order.created event and one fan-out job', async () => {
    const before = Math.floor(Date.now() / 1000);
    const order = await newOrder();
    const after = Math.ceil(Date.now() / 1000);
    const got = await getOrder(order.id);
    expect(got.status_history).toEqual([{ status: 'created', at: got.created }]);

    const events = await eventRows(order.id);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ type: 'order.created', partner_id: partner.partnerId, environment: 'sandbox', id: event!.envelope.id });
    expectEnvelope(event!.envelope, 'order.created', got, false);
    expect(event!.envelope.created).toBeGreaterThanOrEqual(before);
    expect(event!.envelope.created).toBeLessThanOrEqual(after);
    expect(event!.envelope.created).toBe(event!.created_unix);

    const jobs = await fanOutJobs([event!.id]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.data).toEqual({ event_id: event!.id });
  });

  it('every accepted move writes the row, a history entry, exactly one event whose data.object is the order as GET returns it, and one job', async () => {
    const order = await newOrder();
    const path: { status: OrderStatus; event: string }[] = [
      { status: 'courier_assigned', event: 'order.courier_assigned' },
      { status: 'created', event: 'order.courier_unassigned' },
      { status: 'courier_assigned', event: 'order.courier_assigned' },
      { status: 'arrived_at_pickup', event: 'order.arrived_at_pickup' },
      { status: 'picked_up', event: 'order.picked_up' },
      { status: 'arrived_at_dropoff', event: 'order.arrived_at_dropoff' },
      { status: 'returning', event: 'order.return_started' },
      { status: 'returned', event: 'order.returned' },
    ];
    for (const [i, step] of path.entries()) {
      const before = await eventRows(order.id);
      const moved = api.expectStatus(200, await simulate(order.id, step.status));
      const got = await getOrder(order.id);
      expect(moved).toEqual(got);
      expect(got.status).toBe(step.status);
      expect(got.status_history).toHaveLength(i + 2);
      expect(got.status_history.at(-1)).toEqual({ status: step.status, at: got.updated });
      const row = await orderRow(order.id);
      expect(row.status).toBe(step.status);
      expect(row.status_history).toEqual(got.status_history);

      const events = await eventRows(order.id);
      expect(events.slice(0, -1).map((e) => e.id)).toEqual(before.map((e) => e.id));
      expect(events).toHaveLength(before.length + 1);
      const event = events.at(-1)!;
      expect(event.type).toBe(step.event);
      expectEnvelope(event.envelope, step.event, got, false);
      expect(event.envelope.created).toBe(got.updated);

      const jobs = await fanOutJobs([event.id]);
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ name: 'webhooks.fanout', data: { event_id: event.id } });
      expect(jobs[0]!.data).toEqual({ event_id: event.id });
    }
    // The event list holds the same envelopes, newest first (in the first version, the stored ones as they are).
    const listed = await api
      .clientFor(partner, { version: FIRST_VERSION })
      .GET('/partner/events', { params: { query: { order_id: order.id, limit: 100 } } });
    expect(api.expectStatus(200, listed).data).toEqual((await eventRows(order.id)).map((e) => e.envelope).reverse());
  });

  it('production moves carry livemode true', async () => {
    const order = await newOrder(live);
    expect(order.livemode).toBe(true);
    const cancelled = await api.clientFor(live).POST('/partner/orders/{id}/cancel', { params: { path: { id: order.id } }, body: {} });
    api.expectStatus(200, cancelled);
    const got = await getOrder(order.id, live);
    const events = await eventRows(order.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.cancelled']);
    expect(events.every((e) => e.environment === 'production')).toBe(true);
    expectEnvelope(events[1]!.envelope, 'order.cancelled', got, true);
    expect(events[0]!.envelope.livemode).toBe(true);
    expect((await fanOutJobs(events.map((e) => e.id))).map((j) => j.data)).toEqual(
      expect.arrayContaining(events.map((e) => ({ event_id: e.id }))),
    );
  });

  it('a refused move writes nothing: no event, no job, the order untouched', async () => {
    const order = await newOrder();
    const jobsBefore = await countFanOutJobs();
    for (const status of ['delivered', 'returned', 'picked_up', 'created'] as const) {
      const res = await simulate(order.id, status);
      expect(res.response.status).toBe(409);
      expect(res.error?.error.code).toBe('invalid_state_transition');
    }
    expect(await eventRows(order.id)).toHaveLength(1);
    expect(await countFanOutJobs()).toBe(jobsBefore);
    expect(await getOrder(order.id)).toEqual(order);
  });

  it('concurrent moves of one order serialise: one event per accepted move, in order', async () => {
    const order = await newOrder();
    const results = await Promise.all(Array.from({ length: 7 }, () => simulate(order.id)));
    const accepted = results.filter((r) => r.response.status === 200);
    // Five happy-path steps from created to delivered; the rest find a delivered order.
    expect(accepted).toHaveLength(5);
    expect(results.filter((r) => r.response.status === 409)).toHaveLength(2);
    const events = await eventRows(order.id);
    expect(events.map((e) => e.type)).toEqual([
      'order.created',
      'order.courier_assigned',
      'order.arrived_at_pickup',
      'order.picked_up',
      'order.arrived_at_dropoff',
      'order.delivered',
    ]);
    expect(await fanOutJobs(events.map((e) => e.id))).toHaveLength(events.length);
    expect(events.at(-1)!.envelope.data.object).toEqual(await getOrder(order.id));
  });

  it('a move inside a transaction that rolls back leaves no event, no job, and the order as it was', async () => {
    const order = await newOrder();
    const jobsBefore = await countFanOutJobs();
    const ctx = jobContext(svc.rt, 'test.rollback');
    let moved: { status: string } | undefined;
    const attempt = withTransaction(ctx, async (tx) => {
      moved = await moveOrder({ ctx: tx, input: { orderId: order.id, to: 'courier_assigned' } });
      // Inside the transaction the move, its event and its job are all visible...
      const [seen] = await tx.db.execute<{ events: number; jobs: number }>(
        sql`select (select count(*)::int from events where object_id = ${order.id}) as events, (select count(*)::int from pgboss.job where name = 'webhooks.fanout') as jobs`,
      );
      expect(seen).toEqual({ events: 2, jobs: jobsBefore + 1 });
      throw new Error('something after the move failed');
    });
    await expect(attempt).rejects.toThrow('something after the move failed');
    expect(moved?.status).toBe('courier_assigned');
    // ...and after the rollback none of them is.
    expect((await eventRows(order.id)).map((e) => e.type)).toEqual(['order.created']);
    expect(await countFanOutJobs()).toBe(jobsBefore);
    expect((await orderRow(order.id)).status).toBe('created');
    expect(await getOrder(order.id)).toEqual(order);
  });

  it('when the job cannot be enqueued the move rolls back: order row and event row included', async () => {
    const order = await newOrder();
    const jobsBefore = await countFanOutJobs();
    const send = vi.spyOn(svc.rt.boss!, 'send').mockRejectedValueOnce(new Error('job queue unavailable'));
    await expect(
      moveOrder({ ctx: jobContext(svc.rt, 'test.enqueue-failure'), input: { orderId: order.id, to: 'courier_assigned' } }),
    ).rejects.toThrow('job queue unavailable');
    expect(send).toHaveBeenCalledTimes(1);
    expect((await eventRows(order.id)).map((e) => e.type)).toEqual(['order.created']);
    expect(await countFanOutJobs()).toBe(jobsBefore);
    expect(await getOrder(order.id)).toEqual(order);

    // Through HTTP the same failure is a generic JSON 500 that leaks nothing, and changes nothing.
    vi.spyOn(svc.rt.boss!, 'send').mockRejectedValueOnce(new Error('job queue unavailable'));
    const res = await simulate(order.id);
    expect(res.response.status).toBe(500);
    expect(res.response.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.error?.error.type).toBe('api_error');
    expect(JSON.stringify(res.error)).not.toContain('job queue');
    expect((await eventRows(order.id)).map((e) => e.type)).toEqual(['order.created']);
    expect(await getOrder(order.id)).toEqual(order);

    // Once the queue is back, the same move goes through with its event and job.
    vi.restoreAllMocks();
    api.expectStatus(200, await simulate(order.id));
    const events = await eventRows(order.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.courier_assigned']);
    expect(await fanOutJobs([events[1]!.id])).toHaveLength(1);
  });

  it('the workers complete every fan-out job, a burst of events included, within seconds', async () => {
    const order = await newOrder();
    api.expectStatus(200, await simulate(order.id));
    const ids = (await eventRows(order.id)).map((e) => e.id);
    expect(ids).toHaveLength(2);
    // A burst: 12 orders walked to delivered at once, 72 events.
    const burst = await Promise.all(Array.from({ length: 12 }, () => newOrder()));
    await Promise.all(
      burst.map(async (o) => {
        for (let i = 0; i < 5; i++) api.expectStatus(200, await simulate(o.id));
      }),
    );
    const pending = () =>
      svc.rt.db.execute<{ state: string; n: number }>(
        sql`select state, count(*)::int as n from pgboss.job where name = 'webhooks.fanout' and state <> 'completed' group by state`,
      );
    expect(
      Array.from(
        await waitFor('every fan-out job completed', pending, { until: (rows) => rows.length === 0, timeoutMs: 10_000, intervalMs: 100 }),
      ),
    ).toEqual([]);
    const jobs = await fanOutJobs(ids);
    expect(jobs.map((j) => j.state)).toEqual(['completed', 'completed']);
  });
});
