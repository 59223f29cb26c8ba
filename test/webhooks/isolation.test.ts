import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// One partner's slow endpoints must not slow another partner's webhooks. Partner B points all 20 of
// its subscriptions at an endpoint that answers after 9.5 s and creates 40 orders (800 deliveries);
// partner A's order.created latency is measured without B, then while B's attempts hang.

const SLOW_MS = 9500;
let svc: TestService;
let a: TestPartner;
let b: TestPartner;
let fast: Awaited<ReturnType<typeof startReceiver>>;
let slow: Awaited<ReturnType<typeof startReceiver>>;
let slowInFlight = 0;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  a = await createTestPartner(svc);
  b = await createTestPartner(svc);
  fast = await startReceiver();
  slow = await startReceiver(() => {
    slowInFlight++;
    setTimeout(() => slowInFlight--, SLOW_MS);
    return { status: 200, delayMs: SLOW_MS };
  });
});
afterAll(async () => {
  await fast.close();
  await slow.close();
});

async function subscribe(who: TestPartner, url: string): Promise<void> {
  await newSubscription(who, { url, event_filters: ['order.created'] });
}

/** Partner A's order.created, from the order's creation (committed when the POST answers) to its receipt. */
async function latenciesOfA(count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const order = await newOrder(a);
    const committed = Date.now();
    const got = await waitFor("partner A's order.created", () => fast.received.find((r) => r.rawBody.toString().includes(order.id)), {
      timeoutMs: 40_000,
      intervalMs: 5,
    });
    out.push(got.at - committed);
  }
  return out;
}

const p99 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.99) - 1)]!;

describe("a partner's slow endpoints", () => {
  it("do not delay another partner's webhooks (both latencies printed)", { timeout: 120_000 }, async () => {
    await subscribe(a, `https://localhost:${fast.port}/a`);
    for (let i = 0; i < 20; i++) await subscribe(b, `https://localhost:${slow.port}/b/${i}`);

    const alone = await latenciesOfA(15);
    await Promise.all(Array.from({ length: 40 }, () => newOrder(b)));
    await waitFor("partner B's attempts hanging at its endpoint", () => slowInFlight >= 100, { timeoutMs: 20_000 });
    const beside = await latenciesOfA(15);
    const hangingMeanwhile = slowInFlight;

    console.log(
      `[isolation] partner A commit-to-receipt p99: ${p99(alone)} ms alone, ${p99(beside)} ms beside partner B's 800 deliveries to a 9.5 s endpoint ` +
        `(${hangingMeanwhile} of B's attempts hanging; ratio ${(p99(beside) / Math.max(1, p99(alone))).toFixed(2)}); A: [${beside.join(', ')}] ms`,
    );
    expect(hangingMeanwhile).toBeGreaterThanOrEqual(100);
    // Before the engine, A waited for the batch it shared with B's hanging attempts: 27.8-30.8 s.
    expect(p99(beside)).toBeLessThan(Math.max(2 * p99(alone), 1000));
  });
});
