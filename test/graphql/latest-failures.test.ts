import { beforeAll, expect, it } from 'vitest';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { newOrder, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The overview's latest failures: the newest failed attempts of the window, newest first, each naming
// its partner, subscription and event; successes never appear; `first` is bounded.

let svc: TestService;
let support: TestOperator;
let partner: TestPartner;
let failSub: string;
let okSub: string;

const FAILURES = `query($first: Int!) { overview(windowMinutes: 60) { latestFailures(first: $first) {
  attemptId deliveryId eventId eventType subscriptionId url partnerId partnerName environment number startedAt
  responseStatus errorKind errorMessage } } }`;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1' });
  const receiver = await startReceiver((req) => (req.path === '/fail' ? { status: 503, body: 'down' } : { status: 200, body: 'ok' }));
  support = await createTestOperator(svc, 'support');
  partner = await createTestPartner(svc);
  const subscribe = async (path: string) =>
    (await newSubscription(partner, { url: `https://localhost:${receiver.port}${path}`, event_filters: ['order.created'] })).id;
  failSub = await subscribe('/fail');
  okSub = await subscribe('/ok');
  await newOrder(partner);
  await newOrder(partner);
  // Two deliveries to /fail, each tried twice (first attempt and one retry): four failed attempts.
  await waitFor(
    'four failed attempts',
    async () => (await gqlData(support, FAILURES, { first: 50 })).overview.latestFailures.length === 4,
    {
      timeoutMs: 30_000,
      intervalMs: 200,
    },
  );
  return () => receiver.close();
}, 60_000);

it('lists the failed attempts newest first with their partner, subscription and event, and no success', async () => {
  const failures = (await gqlData(support, FAILURES, { first: 50 })).overview.latestFailures;
  expect(failures).toHaveLength(4);
  for (const f of failures) {
    expect(f).toMatchObject({
      subscriptionId: failSub,
      partnerId: partner.partnerId,
      partnerName: 'Test Partner',
      environment: 'sandbox',
      eventType: 'order.created',
      responseStatus: 503,
      errorKind: 'http_status',
    });
    expect(f.subscriptionId).not.toBe(okSub);
  }
  const times = failures.map((f: { startedAt: string }) => Date.parse(f.startedAt));
  expect(times).toEqual([...times].sort((x, y) => y - x));
  expect(new Set(failures.map((f: { eventId: string }) => f.eventId)).size).toBe(2);
  expect(failures.map((f: { number: number }) => f.number).sort()).toEqual([1, 1, 2, 2]);

  const two = (await gqlData(support, FAILURES, { first: 2 })).overview.latestFailures;
  expect(two.map((f: { attemptId: string }) => f.attemptId)).toEqual(failures.slice(0, 2).map((f: { attemptId: string }) => f.attemptId));
});

it('refuses a first outside 1 to 50, naming it', async () => {
  for (const first of [0, 51]) {
    const refused = await gql(support, FAILURES, { first });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'first' });
  }
});

it('needs a session', async () => {
  const anonymous = await gql({ baseUrl: svc.url, cookie: '' }, FAILURES, { first: 5 });
  expect(anonymous.status).toBe(401);
});
