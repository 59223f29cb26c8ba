import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { goLiveChecklist } from '@/server/onboarding/go-live-checklist';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { call, newOrder, newQuote } from '../support/partner-api';
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

/** Simulates the order along the happy path (the sandbox simulator) until it is delivered. */
async function deliver(partner: TestPartner, orderId: string): Promise<void> {
  for (let step = 0; step < 8; step++) {
    const moved = await call('POST', `/partner/orders/${orderId}/simulate`, partner, {});
    expect(moved.status, moved.text).toBe(200);
    if (moved.body.status === 'delivered') return;
  }
  throw new Error('the order never reached delivered');
}

describe('the go-live checklist', () => {
  it("follows the partner's own sandbox activity, each item with its evidence", async () => {
    const partner = await createTestPartner(svc);
    const before = await checklistOf(partner.partnerId);
    expect(Object.values(before).every((i) => !i.passed)).toBe(true);

    const hook = await call('POST', '/partner/webhooks', partner, { url: `https://localhost:${receiver.port}/hooks` });
    expect(hook.status, hook.text).toBe(201);
    const delivered = await newOrder(partner);
    await deliver(partner, delivered.id);
    const cancelled = await newOrder(partner);
    expect((await call('POST', `/partner/orders/${cancelled.id}/cancel`, partner, {})).status).toBe(200);
    const test = await call('POST', `/partner/webhooks/${hook.body.id}/test`, partner);
    expect(test.status).toBe(202);
    await waitFor('the webhook.test answered', async () => (await checklistOf(partner.partnerId)).webhook_test!.passed);
    expect((await call('POST', `/partner/events/${test.body.id}/redeliver`, partner, {})).status).toBe(202);
    const retried = { ...partner, headers: { ...partner.headers, 'idempotency-key': 'go-live-retry-1' } };
    const first = await call('POST', '/partner/quotes', retried, NYC);
    const again = await call('POST', '/partner/quotes', retried, NYC);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const after = await waitFor('every item passed', async () => {
      const items = await checklistOf(partner.partnerId);
      return Object.values(items).every((i) => i.passed) ? items : undefined;
    });
    expect(after.order_delivered_and_cancelled!.evidence.map((e) => e.href)).toEqual([
      `/orders/${delivered.id}`,
      `/orders/${cancelled.id}`,
    ]);
    expect(after.subscription_event_types!.evidence[0]!.href).toBe(`/subscriptions/${hook.body.id}`);
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
    expect((await call('POST', '/partner/quotes', partner, { pickup: NYC.pickup })).status).toBe(400);
    expect((await call('GET', '/partner/orders/01J00000000000000000000000', partner)).status).toBe(404);
    expect((await checklistOf(partner.partnerId)).invalid_share).toMatchObject({ passed: false, detail: '2 of 3 requests (66.7 %)' });
    const [row] = await svc.rt.db.execute<{ requests: number; invalid: number }>(
      sql`select requests, invalid from partner_request_counts where partner_id = ${partner.partnerId} and environment = 'sandbox'`,
    );
    expect(row).toEqual({ requests: 3, invalid: 2 });
  });

  it('a web process adds what it counted when it stops', async () => {
    const web = await startTestService({ WORKERS: 'off' }, { databaseUrl: svc.databaseUrl });
    const partner = { ...(await createTestPartner(svc)), baseUrl: web.url };
    expect((await call('POST', '/partner/quotes', partner, NYC)).status).toBe(201);
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
    const asked = await call('POST', '/partner/go-live-request', partner, { note: 'all green in the sandbox' });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.body).toEqual({ partner_id: partner.partnerId, go_live_status: 'requested', go_live_note: 'all green in the sandbox' });
    const again = await call('POST', '/partner/go-live-request', partner, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'go_live_already_requested', go_live_status: 'requested' });

    const live = await createTestPartner(svc, { environment: 'production' });
    const refused = await call('POST', '/partner/go-live-request', live, {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('sandbox_credentials_required');
  });
});

const REVIEW = `query ($id: ID!) { goLiveReview(partnerId: $id) { status note checklist { id passed } history { from to note actor at } } }`;

describe('the review decided over GraphQL', () => {
  it('approving with an e-mail issues the production credential and hands it over; the history has every move', async () => {
    const partner = await createTestPartner(svc);
    expect((await call('POST', '/partner/go-live-request', partner, {})).status).toBe(202);
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
    await call('POST', '/partner/go-live-request', partner, {});
    await gqlData(
      admin,
      `mutation ($id: ID!) { rejectGoLive(partnerId: $id, note: "no cancelled order", email: "dev@partner.example") { status } }`,
      {
        id: partner.partnerId,
      },
    );
    const mail = await waitFor('the rejection mail', () => smtp.received.find((m) => m.to.includes('dev@partner.example')));
    expect(mail.raw).toContain('no cancelled order');

    await call('POST', '/partner/go-live-request', partner, {});
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
