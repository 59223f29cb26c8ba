import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectStatus, newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// DESIGN.md section 5: per-subscription concurrency is bounded, so one partner's slow endpoint neither gets
// flooded nor delays other partners' deliveries. The limit starts at WEBHOOK_BASE_IN_FLIGHT_PER_SUBSCRIPTION
// (10) and follows the receiver up to WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION (64): a slow one never gets more
// than the base, one that keeps up gets more while its deliveries wait (server/delivery/in-flight-limit.ts).

const SLOW_MS = 1500;
let svc: TestService;
let slowPartner: TestPartner;
let fastPartner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let inFlight = 0;
let maxInFlight = 0;
// The receiver that keeps up: answers 2xx in PROMPT_MS, or 500 once `failing` is set.
const PROMPT_MS = 40;
const prompt = { inFlight: 0, maxInFlight: 0, failing: false };

beforeAll(async () => {
  // The replay's 400 orders are made as fast as the API answers: past the default rate limit on a quiet machine.
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '1000' });
  slowPartner = await createTestPartner(svc);
  fastPartner = await createTestPartner(svc);
  receiver = await startReceiver((req) => {
    if (req.path.startsWith('/prompt')) {
      prompt.inFlight++;
      prompt.maxInFlight = Math.max(prompt.maxInFlight, prompt.inFlight);
      setTimeout(() => prompt.inFlight--, PROMPT_MS);
      return { status: prompt.failing ? 500 : 200, delayMs: PROMPT_MS };
    }
    if (!req.path.startsWith('/slow')) return { status: 200 };
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => inFlight--, SLOW_MS);
    return { status: 200, delayMs: SLOW_MS };
  });
});
afterAll(() => receiver.close());

async function subscribe(who: TestPartner, path: string): Promise<string> {
  return (await newSubscription(who, { url: `https://localhost:${receiver.port}${path}`, event_filters: ['order.created'] })).id;
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

describe('a receiver that keeps up', () => {
  it('gets more than the base in flight while a backlog waits, never more than the max, and the base again once it fails', async () => {
    const partner = await createTestPartner(svc);
    // 400 past events, then a subscription made after them and a replay of them: a backlog at once.
    const since = Math.floor(Date.now() / 1000) - 5;
    for (let i = 0; i < 8; i++) await Promise.all(Array.from({ length: 50 }, () => newOrder(partner)));
    const sub = await subscribe(partner, '/prompt');
    const started = await clientFor(partner).POST('/partner/webhooks/{id}/replay', {
      params: { path: { id: sub } },
      body: { since, only: 'missing' },
    });
    expect(expectStatus(202, started).events_matched).toBe(400);
    await waitFor('the replay at the receiver', () => receiver.received.filter((r) => r.path === '/prompt').length >= 400, {
      timeoutMs: 60_000,
    });
    const grown = prompt.maxInFlight;

    // Now it fails: each failure halves the limit, so once the first answers are back no more than the base are sent at once.
    prompt.failing = true;
    const failingFrom = receiver.received.length;
    for (let i = 0; i < 2; i++) await Promise.all(Array.from({ length: 50 }, () => newOrder(partner)));
    const failed = () => receiver.received.slice(failingFrom).filter((r) => r.path === '/prompt').length;
    await waitFor('the first failures answered', () => failed() >= 30, { timeoutMs: 30_000 });
    await sleep(PROMPT_MS * 2);
    prompt.maxInFlight = 0;
    await waitFor('every failing delivery tried', () => failed() >= 100, { timeoutMs: 30_000 });
    console.log(
      `[concurrency] a receiver answering 2xx in ${PROMPT_MS} ms: at most ${grown} in flight; failing: at most ${prompt.maxInFlight}`,
    );
    expect(grown).toBeGreaterThan(10);
    expect(grown).toBeLessThanOrEqual(64);
    expect(prompt.maxInFlight).toBeLessThanOrEqual(10);
  }, 120_000);
});
