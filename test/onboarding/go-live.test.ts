import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { goLiveChecklist } from '@/server/onboarding/go-live-checklist';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { call, clientFor, expectStatus, newOrder, newQuote, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

let svc: TestService;
let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let admin: TestOperator;

beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startReceiver(() => ({ status: 200 }));
  svc = await startTestService({ SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  admin = await createTestOperator(svc, 'admin');
});
afterAll(async () => {
  await receiver.close();
  await smtp.close();
});

const checklistOf = async (partnerId: string) => {
  await svc.rt.requestCounts.flush(svc.rt.db);
  const items = await goLiveChecklist({ ctx: cliContext(svc.rt), input: { partnerId } });
  return Object.fromEntries(items.map((i) => [i.key, i]));
};

const goLiveRequest = (who: TestPartner, note?: string) =>
  clientFor(who).POST('/partner/go-live-request', { body: note === undefined ? {} : { note } });

/** Simulates the order along the happy path (the sandbox simulator) until it is delivered. */
async function deliver(partner: TestPartner, orderId: string): Promise<void> {
  for (let step = 0; step < 8; step++) {
    const moved = await clientFor(partner).POST('/partner/orders/{id}/simulate', { params: { path: { id: orderId } }, body: {} });
    if (expectStatus(200, moved).status === 'delivered') return;
  }
  throw new Error('the order never reached delivered');
}

describe('the go-live checklist', () => {
  it("follows the partner's own sandbox activity, each item with its evidence", async () => {
    const partner = await createTestPartner(svc);
    const before = await checklistOf(partner.partnerId);
    expect(Object.values(before).every((i) => !i.passed)).toBe(true);

    const api = clientFor(partner);
    const hook = await newSubscription(partner, { url: `https://localhost:${receiver.port}/hooks` });
    const delivered = await newOrder(partner);
    await deliver(partner, delivered.id);
    const cancelled = await newOrder(partner);
    expectStatus(200, await api.POST('/partner/orders/{id}/cancel', { params: { path: { id: cancelled.id } }, body: {} }));
    const test = expectStatus(202, await api.POST('/partner/webhooks/{id}/test', { params: { path: { id: hook.id } } }));
    await waitFor('the webhook.test answered', async () => (await checklistOf(partner.partnerId)).webhook_test!.passed);
    expectStatus(202, await api.POST('/partner/events/{id}/redeliver', { params: { path: { id: test.id } }, body: {} }));
    const retry = () => api.POST('/partner/quotes', { params: { header: { 'Idempotency-Key': 'go-live-retry-1' } }, body: NYC });
    const first = expectStatus(201, await retry());
    const again = await retry();
    expect(expectStatus(201, again).id).toBe(first.id);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');

    const after = await waitFor('every item passed', async () => {
      const items = await checklistOf(partner.partnerId);
      return Object.values(items).every((i) => i.passed) ? items : undefined;
    });
    expect(after.order_delivered_and_cancelled!.evidence.map((e) => e.href)).toEqual([
      `/orders/${delivered.id}`,
      `/orders/${cancelled.id}`,
    ]);
    expect(after.subscription_event_types!.evidence[0]!.href).toBe(`/subscriptions/${hook.id}`);
    expect(after.subscription_event_types!.evidence.map((e) => e.label)).toEqual(
      expect.arrayContaining(['order.created', 'order.delivered', 'order.cancelled']),
    );
    expect(after.webhook_test!.evidence[0]!.href).toMatch(/^\/deliveries\//);
    expect(after.redelivery_or_replay!.detail).toBe('a manual attempt');
    expect(after.idempotency_retry!.detail).toBe('1 request answered from a stored response');
  });

  it('counts requests refused as invalid: enough of them fail the share', async () => {
    const partner = await createTestPartner(svc);
    await newQuote(partner);
    expect((await checklistOf(partner.partnerId)).invalid_share).toMatchObject({ passed: true, detail: '0 of 1 requests (0.0 %)' });
    // Raw: a body without its dropoff, as a partner's own code might send it.
    expect((await call('POST', '/partner/quotes', partner, { pickup: NYC.pickup })).status).toBe(400);
    const missing = await clientFor(partner).GET('/partner/orders/{id}', { params: { path: { id: '01J00000000000000000000000' } } });
    expect(missing.response.status).toBe(404);
    expect((await checklistOf(partner.partnerId)).invalid_share).toMatchObject({ passed: false, detail: '2 of 3 requests (66.7 %)' });
    const [row] = await svc.rt.db.execute<{ requests: number; invalid: number }>(
      sql`select requests, invalid from partner_request_counts where partner_id = ${partner.partnerId} and environment = 'sandbox'`,
    );
    expect(row).toEqual({ requests: 3, invalid: 2 });
  });

  it('a web process adds what it counted when it stops', async () => {
    const web = await startTestService({ WORKERS: 'off' }, { databaseUrl: svc.databaseUrl });
    const partner = { ...(await createTestPartner(svc)), baseUrl: web.url };
    expectStatus(201, await clientFor(partner).POST('/partner/quotes', { body: NYC }));
    expect((await call('POST', '/partner/quotes', partner, {})).status).toBe(400);
    await web.stop();
    const [row] = await svc.rt.db.execute<{ requests: number; invalid: number }>(
      sql`select requests, invalid from partner_request_counts where partner_id = ${partner.partnerId}`,
    );
    expect(row).toEqual({ requests: 2, invalid: 1 });
  });
});

describe('POST /partner/go-live-request', () => {
  it('moves the review to requested; asking again is a 409 with the state; production keys are refused', async () => {
    const partner = await createTestPartner(svc);
    const asked = await goLiveRequest(partner, 'all green in the sandbox');
    expect(expectStatus(202, asked)).toEqual({
      partner_id: partner.partnerId,
      go_live_status: 'requested',
      go_live_note: 'all green in the sandbox',
    });
    const again = await goLiveRequest(partner);
    expect(again.response.status).toBe(409);
    expect(again.error?.error).toMatchObject({ code: 'go_live_already_requested', go_live_status: 'requested' });

    const live = await createTestPartner(svc, { environment: 'production' });
    const refused = await goLiveRequest(live);
    expect(refused.response.status).toBe(403);
    expect(refused.error?.error.code).toBe('sandbox_credentials_required');
  });
});

const REVIEW = `query ($id: ID!) { goLiveReview(partnerId: $id) { status note checklist { id passed } history { from to note actor at } } }`;

describe('the review decided over GraphQL', () => {
  it('approving with an e-mail issues the production credential and hands it over; the history has every move', async () => {
    const partner = await createTestPartner(svc);
    expectStatus(202, await goLiveRequest(partner));
    const approved = await gqlData(
      admin,
      `mutation ($id: ID!) { approveGoLive(partnerId: $id, note: "checked", email: "ops@partner.example") { status handover { clientId email } } }`,
      { id: partner.partnerId },
    );
    expect(approved.approveGoLive.status).toBe('approved');
    const clientId: string = approved.approveGoLive.handover.clientId;
    const mail = await waitFor('the hand-over mail', () => smtp.received.find((m) => m.to.includes('ops@partner.example')));
    expect(mail.raw.replace(/=\r?\n/g, '')).toMatch(/\/handover\/[\w-]{20,}/);
    const [credential] = await svc.rt.db.execute<{ environment: string }>(
      sql`select environment from credentials where client_id = ${clientId}`,
    );
    expect(credential!.environment).toBe('production');

    const review = (await gqlData(admin, REVIEW, { id: partner.partnerId })).goLiveReview;
    expect(review.status).toBe('approved');
    expect(review.checklist).toHaveLength(7);
    expect(review.history.map((h: { to: string; actor: string }) => [h.to, h.actor])).toEqual([
      ['approved', `operator:${admin.email}`],
      ['requested', `partner:${partner.clientId}`],
    ]);
    expect(review.history[0].note).toBe('checked');
  });

  it('rejecting with an e-mail sends the reason; without one nothing is sent and no credential issued', async () => {
    const partner = await createTestPartner(svc);
    expectStatus(202, await goLiveRequest(partner));
    await gqlData(
      admin,
      `mutation ($id: ID!) { rejectGoLive(partnerId: $id, note: "no cancelled order", email: "dev@partner.example") { status } }`,
      {
        id: partner.partnerId,
      },
    );
    const mail = await waitFor('the rejection mail', () => smtp.received.find((m) => m.to.includes('dev@partner.example')));
    expect(mail.raw).toContain('no cancelled order');

    expectStatus(202, await goLiveRequest(partner));
    const plain = await gql(admin, `mutation ($id: ID!) { approveGoLive(partnerId: $id) { status handover { clientId } } }`, {
      id: partner.partnerId,
    });
    expect(plain.data.approveGoLive).toEqual({ status: 'approved', handover: null });
    const history = (await gqlData(admin, REVIEW, { id: partner.partnerId })).goLiveReview.history;
    expect(history.map((h: { from: string; to: string }) => `${h.from}>${h.to}`)).toEqual([
      'requested>approved',
      'rejected>requested',
      'requested>rejected',
      'not_requested>requested',
    ]);
  });
});
