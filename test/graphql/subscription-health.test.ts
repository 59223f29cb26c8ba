import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { actingFor } from '@/server/context';
import { newId } from '@/server/ids';
import { createPartner } from '@/server/partners/create';
import { createWebhook } from '@/server/webhooks/create';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { startTestService, type TestService } from '../support/service';

// Webhook hosts resolve to a public address; workers are off, so nothing is sent and the attempts are ours.
const PUBLIC_ADDRESS = '93.184.215.14';

let svc: TestService;
let support: TestOperator;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off' }, { resolver: async () => [PUBLIC_ADDRESS] });
  support = await createTestOperator(svc, 'support');
});

const HEALTH = `query ($id: ID!, $windowHours: Int!) {
  subscriptionHealth(id: $id, windowHours: $windowHours) {
    subscription { id url status disabledReason failingSince successRate { attempts } }
    windowHours since bucketMinutes
    buckets { start attempts succeeded p50DurationMs p95DurationMs }
    attempts succeeded successRate
    statusClasses { statusClass attempts }
    consecutiveFailures pendingDeliveries dueDeliveries oldestPendingAt
  }
}`;

/** One delivery with one attempt per entry, written as the delivery engine writes them. */
async function record(
  subscriptionId: string,
  partnerId: string,
  attempts: { at: Date; status: number | null; ms: number }[],
  deliveryStatus = 'succeeded',
) {
  for (const { at, status, ms } of attempts) {
    const [eventId, deliveryId] = [newId(), newId()];
    const iso = at.toISOString();
    const ok = status !== null && status < 300;
    await svc.rt.sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
      values (${eventId}, ${partnerId}, 'sandbox', 'order.created', ${newId()}, '{}'::jsonb, ${iso}::timestamptz)`;
    await svc.rt
      .sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, last_attempt_at, created_at, updated_at)
      values (${deliveryId}, ${eventId}, ${subscriptionId}, 'order.created', ${deliveryStatus}, 1, ${iso}::timestamptz, ${iso}::timestamptz, ${iso}::timestamptz)`;
    await svc.rt.sql`insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, error_kind)
      values (${newId()}, ${deliveryId}, 1, 'scheduled', ${iso}::timestamptz, ${ms}, ${status}, ${ok ? null : status === null ? 'timeout' : 'http_status'})`;
  }
}

describe('subscriptionHealth', () => {
  it('buckets attempts with success and p50/p95 latency, counts status classes, the failure streak and the backlog', async () => {
    const ctx = cliContext(svc.rt, 'test');
    const partner = await createPartner({ ctx, input: { name: 'Health Couriers' } });
    const hook = await createWebhook({
      ctx: actingFor(ctx, { partnerId: partner.id, environment: 'sandbox' }),
      input: { url: 'https://hooks.example.com/health' },
    });
    // Past a one-hour window, which starts at the whole minute at or before an hour ago.
    const hourAgo = new Date(Date.now() - 3600_000 - 60_000);
    const halfHourAgo = new Date(Date.now() - 1800_000);
    await record(hook.id, partner.id, [
      { at: hourAgo, status: 200, ms: 10 },
      { at: hourAgo, status: 200, ms: 20 },
      { at: hourAgo, status: 200, ms: 30 },
      { at: hourAgo, status: 404, ms: 40 },
    ]);
    await record(hook.id, partner.id, [
      { at: halfHourAgo, status: 500, ms: 100 },
      { at: halfHourAgo, status: null, ms: 5000 },
    ]);
    // Outside a 24 h window.
    await record(hook.id, partner.id, [{ at: new Date(Date.now() - 30 * 3600_000), status: 500, ms: 1 }]);
    // Two pending deliveries: one due, one waiting for its retry.
    await record(hook.id, partner.id, [{ at: halfHourAgo, status: 503, ms: 7 }], 'pending');
    await svc.rt
      .sql`update webhook_deliveries set next_attempt_at = now() + interval '1 hour' where subscription_id = ${hook.id} and status = 'pending'`;
    await record(hook.id, partner.id, [{ at: halfHourAgo, status: 503, ms: 7 }], 'pending');
    // The streak as the engine keeps it on the row (test/graphql/deliveries.test.ts records real failures).
    await svc.rt
      .sql`update webhook_subscriptions set failing_since = ${halfHourAgo.toISOString()}::timestamptz, streak_failures = 4 where id = ${hook.id}`;

    const { subscriptionHealth: h } = await gqlData(support, HEALTH, { id: hook.id, windowHours: 24 });
    expect(h.subscription).toMatchObject({ id: hook.id, url: 'https://hooks.example.com/health', status: 'enabled' });
    expect(h.windowHours).toBe(24);
    expect(h.bucketMinutes).toBe(30);
    expect(h.attempts).toBe(8);
    expect(h.succeeded).toBe(3);
    expect(h.successRate).toBeCloseTo(3 / 8);
    expect(h.buckets.map((b: { attempts: number }) => b.attempts).reduce((a: number, b: number) => a + b, 0)).toBe(8);
    const first = h.buckets[0];
    expect(first).toMatchObject({ attempts: 4, succeeded: 3, p50DurationMs: 25 });
    expect(first.p95DurationMs).toBeGreaterThanOrEqual(38);
    expect(h.statusClasses).toEqual([
      { statusClass: 'S2XX', attempts: 3 },
      { statusClass: 'S4XX', attempts: 1 },
      { statusClass: 'S5XX', attempts: 3 },
      { statusClass: 'NONE', attempts: 1 },
    ]);
    // The 500, the timeout and the two 503s: the failures since failing_since.
    expect(h.consecutiveFailures).toBe(4);
    expect(h.pendingDeliveries).toBe(2);
    expect(h.dueDeliveries).toBe(1);
    expect(new Date(h.oldestPendingAt).getTime()).toBeCloseTo(halfHourAgo.getTime(), -3);

    // A one-hour window leaves the older attempts out; a healthy subscription has no streak.
    await svc.rt.sql`update webhook_subscriptions set failing_since = null where id = ${hook.id}`;
    const { subscriptionHealth: hour } = await gqlData(support, HEALTH, { id: hook.id, windowHours: 1 });
    expect(hour.bucketMinutes).toBe(2);
    expect(hour.attempts).toBe(4);
    expect(hour.consecutiveFailures).toBeNull();

    // A 7-day window reads the rollup's hours: 240-minute buckets on whole hours, the older attempt inside.
    const { subscriptionHealth: week } = await gqlData(support, HEALTH, { id: hook.id, windowHours: 168 });
    expect(week.bucketMinutes).toBe(240);
    expect(week.attempts).toBe(9);
    expect(week.buckets.map((b: { start: string }) => new Date(b.start).getTime() % 3600_000)).toEqual(week.buckets.map(() => 0));
  });

  it('an unknown id is resource_missing, a window out of range names windowHours, and it needs a session', async () => {
    const missing = await gql(support, HEALTH, { id: 'nope', windowHours: 24 });
    expect(missing.errors?.[0]?.extensions).toMatchObject({ code: 'resource_missing', param: 'id' });
    const wide = await gql(support, HEALTH, { id: 'nope', windowHours: 169 });
    expect(wide.errors?.[0]?.extensions).toMatchObject({ param: 'windowHours' });
    const anonymous = await gql({ baseUrl: support.baseUrl, cookie: '' }, HEALTH, { id: 'nope', windowHours: 24 });
    expect(anonymous.data?.subscriptionHealth).toBeFalsy();
    expect(anonymous.errors?.length).toBeGreaterThan(0);
  });
});
