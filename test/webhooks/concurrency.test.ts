import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newOrder } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// DESIGN.md section 5: per-subscription concurrency is bounded (WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION,
// default 10), so one partner's slow endpoint neither gets flooded nor delays other partners' deliveries.

const SLOW_MS = 1500;
let svc: TestService;
let slowPartner: TestPartner;
let fastPartner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let inFlight = 0;
let maxInFlight = 0;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  slowPartner = await createTestPartner(svc);
  fastPartner = await createTestPartner(svc);
  receiver = await startReceiver((req) => {
    if (!req.path.startsWith('/slow')) return { status: 200 };
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => inFlight--, SLOW_MS);
    return { status: 200, delayMs: SLOW_MS };
  });
});
afterAll(() => receiver.close());

async function subscribe(who: TestPartner, path: string) {
  const created = await call('POST', '/partner/webhooks', who, {
    url: `https://localhost:${receiver.port}${path}`,
    event_filters: ['order.created'],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
}

describe('a slow receiver', () => {
  it('gets at most 10 attempts at once, and another partner is served meanwhile', async () => {
    await subscribe(slowPartner, '/slow');
    await subscribe(fastPartner, '/fast');
    const backlog = 40;
    const slowOrders = await Promise.all(Array.from({ length: backlog }, () => newOrder(slowPartner)));
    await waitFor('5 attempts in flight to the slow receiver', () => maxInFlight >= 5, { timeoutMs: 10_000 });

    const createdAt = Date.now();
    const fastOrder = await newOrder(fastPartner);
    const fast = await waitFor(
      "the other partner's delivery",
      () => receiver.received.find((r) => r.path === '/fast' && r.rawBody.toString().includes(fastOrder.id)),
      { timeoutMs: 10_000 },
    );
    expect(fast).toBeTruthy();
    const fastLatencyMs = fast!.at - createdAt;
    const slowDoneBefore = receiver.received.filter((r) => r.path === '/slow').length;

    const allSlow = await waitFor('every slow delivery', () => receiver.received.filter((r) => r.path === '/slow').length >= backlog, {
      timeoutMs: 30_000,
    });
    expect(allSlow).toBe(true);
    console.log(
      `[concurrency] max in flight to the slow receiver: ${maxInFlight}; the other partner's event arrived in ${fastLatencyMs} ms, with ${backlog - slowDoneBefore} of ${backlog} slow deliveries still queued`,
    );
    expect(maxInFlight).toBeLessThanOrEqual(10);
    expect(fastLatencyMs).toBeLessThan(SLOW_MS * 2);
    expect(slowDoneBefore).toBeLessThan(backlog);
    const ids = new Set(receiver.received.filter((r) => r.path === '/slow').map((r) => JSON.parse(r.rawBody.toString()).data.object.id));
    expect(ids.size).toBe(slowOrders.length);
  });
});
