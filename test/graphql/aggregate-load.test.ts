import { beforeAll, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { actingFor } from '@/server/context';
import { newId } from '@/server/ids';
import { createWebhook } from '@/server/webhooks/create';
import { createTestOperator, gql, type TestOperator } from '../support/operator-api';
import { call } from '../support/partner-api';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

// Issue 21 item 3: one support request of 1,000 aliased `overview(windowMinutes: 1440)` ran 38 s while
// the partner API answered 503s. Here the same request runs against the real service over a day of
// history while another partner asks for quotes. Figures are printed, never asserted: the machine is shared.

const ALIASES = 1000;
const ATTEMPTS = 20_000;
const PARTNER_LOOPS = 4;
const PUBLIC_ADDRESS = '93.184.215.14';

let svc: TestService;
let support: TestOperator;
let partner: TestPartner;

beforeAll(async () => {
  // Workers off: nothing is delivered, so the history below is all there is. The partner's rate limit is
  // out of reach: on a quiet machine its four callers passed 100 quotes/s, and a 429 measures nothing here.
  svc = await startTestService(
    { WORKERS: 'off', RATE_LIMIT_PER_SECOND: '10000', RATE_LIMIT_BURST: '20000' },
    { resolver: async () => [PUBLIC_ADDRESS] },
  );
  support = await createTestOperator(svc, 'support');
  partner = await createTestPartner(svc);
  const owner = await createTestPartner(svc);
  const ctx = actingFor(cliContext(svc.rt, 'test'), { partnerId: owner.partnerId, environment: 'sandbox' });
  const subscriptions: string[] = [];
  for (let i = 0; i < 5; i++) subscriptions.push((await createWebhook({ ctx, input: { url: `https://hooks.example.com/${i}` } })).id);
  // Two failing since yesterday: the overview counts their failures too.
  await svc.rt
    .sql`update webhook_subscriptions set failing_since = now() - interval '20 hours' where id in ${svc.rt.sql(subscriptions.slice(0, 2))}`;
  // A day of history: one event, delivery and attempt each, spread over the last 24 hours, a tenth failed.
  const rows = Array.from({ length: ATTEMPTS }, (_, i) => ({
    event: newId(),
    delivery: newId(),
    attempt: newId(),
    subscription: subscriptions[i % subscriptions.length]!,
    at: new Date(Date.now() - Math.floor((i / ATTEMPTS) * 86_000_000)).toISOString(),
    failed: i % 10 === 0,
  }));
  for (let i = 0; i < rows.length; i += 5000) {
    const page = JSON.stringify(rows.slice(i, i + 5000));
    const x = svc.rt
      .sql`jsonb_to_recordset(${page}::jsonb) as x(event text, delivery text, attempt text, subscription text, at timestamptz, failed bool)`;
    await svc.rt.sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
      select event, ${owner.partnerId}, 'sandbox', 'order.created', event, '{}'::jsonb, at from ${x}`;
    await svc.rt
      .sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, last_attempt_at, created_at, updated_at)
      select delivery, event, subscription, 'order.created', 'succeeded', 1, at, at, at from ${x}`;
    await svc.rt.sql`insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, error_kind)
      select attempt, delivery, 1, 'scheduled', at, 40, case when failed then 503 else 200 end, case when failed then 'http_status' end from ${x}`;
  }
  await svc.rt.sql`analyze events, webhook_deliveries, webhook_attempts`;
}, 120_000);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Quotes asked for by PARTNER_LOOPS callers in a row until `stop` resolves: each answer's status and time. */
async function partnerTraffic(stop: Promise<unknown>): Promise<{ status: number; ms: number }[]> {
  let done = false;
  void stop.finally(() => (done = true));
  const seen: { status: number; ms: number }[] = [];
  const loop = async () => {
    while (!done) {
      const started = performance.now();
      const res = await call('POST', '/partner/quotes', partner, NYC, { timeoutMs: 30_000 });
      seen.push({ status: res.status, ms: performance.now() - started });
    }
  };
  await Promise.all(Array.from({ length: PARTNER_LOOPS }, loop));
  return seen;
}

function summary(seen: { status: number; ms: number }[]): string {
  const ms = seen.map((s) => s.ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const s of seen) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  return `${seen.length} quotes, p50 ${percentile(ms, 50).toFixed(0)} ms, p95 ${percentile(ms, 95).toFixed(0)} ms, statuses ${JSON.stringify(Object.fromEntries(statuses))}`;
}

it(`refuses ${ALIASES} aliased overview(windowMinutes: 1440) at once, and a partner asking for quotes meanwhile never gets a 503`, async () => {
  const quiet = await partnerTraffic(new Promise((resolve) => setTimeout(resolve, 3000)));
  console.log(`partner alone (3 s): ${summary(quiet)}`);

  const query = `{ ${Array.from({ length: ALIASES }, (_, i) => `o${i}: overview(windowMinutes: 1440) { attempts successRate pendingDeliveries failingSubscriptions { id consecutiveFailures } }`).join(' ')} }`;
  const started = performance.now();
  const reply = gql(support, query);
  const during = await partnerTraffic(reply);
  const answered = await reply;
  const ms = performance.now() - started;
  console.log(
    `${ALIASES} aliased overview(1440), ${(query.length / 1024).toFixed(0)} KB: answered ${answered.status} ${answered.errors?.[0]?.extensions?.code ?? 'data'} in ${ms.toFixed(0)} ms; partner meanwhile: ${summary(during)}`,
  );

  expect(answered.status).toBe(400);
  expect(answered.errors?.[0]?.extensions?.code).toBe('query_too_costly');
  expect(answered.errors?.[0]?.message).toMatch(/overview/);
  expect(during.filter((s) => s.status === 503)).toEqual([]);
  expect(during.every((s) => s.status === 201)).toBe(true);
}, 180_000);

const CONCURRENT = 30;

it(`runs ${CONCURRENT} operations of three overview(windowMinutes: 1440) each, sent at once, a few at a time: the partner never gets a 503`, async () => {
  const query = `{ ${['a', 'b', 'c'].map((a) => `${a}: overview(windowMinutes: 1440) { attempts successRate failingSubscriptions { id consecutiveFailures } }`).join(' ')} }`;
  const started = performance.now();
  const replies = Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const reply = await gql(support, query);
      return { reply, ms: performance.now() - started };
    }),
  );
  const during = await partnerTraffic(replies);
  const answered = await replies;
  const outcomes = new Map<string, number>();
  for (const { reply } of answered) {
    const key = `${reply.status} ${reply.errors?.[0]?.extensions?.code ?? 'data'}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  const last = Math.max(...answered.map((a) => a.ms));
  console.log(
    `${CONCURRENT} × 3 overview(1440) at once: ${JSON.stringify(Object.fromEntries(outcomes))}, the last answered in ${last.toFixed(0)} ms; partner meanwhile: ${summary(during)}`,
  );

  // Each is answered whole, or stopped at its deadline with nothing else wrong.
  for (const { reply } of answered) {
    if (reply.status === 200) expect(reply.errors).toBeUndefined();
    else expect([reply.status, ...new Set(reply.errors?.map((e) => e.extensions?.code))]).toEqual([503, 'operation_timeout']);
  }
  expect(during.filter((s) => s.status === 503)).toEqual([]);
  expect(during.every((s) => s.status === 201)).toBe(true);
}, 180_000);
