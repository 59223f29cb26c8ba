import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';

// Verification written from the spec's part 5, independently of server/webhooks/signing.ts.
function verifySpec(secret: string, header: string, raw: Buffer): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex');
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => v!.length === expected.length && timingSafeEqual(Buffer.from(v!), Buffer.from(expected)));
}

let svc: TestService;
let partner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  partner = await createTestPartner(svc);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

describe('webhook delivery, end to end over HTTPS', () => {
  it('delivers a signed webhook.test via the spec path /webhooks/{id}/test', async () => {
    const created = await call('POST', '/webhooks', partner, { url: receiver.url, description: 'main' });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    const test = await call('POST', `/webhooks/${created.body.id}/test`, partner);
    expect(test.status).toBe(202);
    const got = await waitFor('the webhook.test delivery', () =>
      receiver.received.find((r) => r.headers['x-service-event-id'] === test.body.id),
    );
    expect(got).toBeTruthy();
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-service-event']).toBe('webhook.test');
    expect(verifySpec(created.body.secret, got!.headers['x-service-signature']!, got!.rawBody)).toBe(true);
    const body = JSON.parse(got!.rawBody.toString());
    expect(body).toMatchObject({
      id: test.body.id,
      object: 'event',
      type: 'webhook.test',
      livemode: false,
      data: { object: { id: created.body.id, status: 'enabled' } },
    });
  });

  it('delivers order events to a subscription with empty filters', async () => {
    const quote = await call('POST', '/partner/quotes', partner, NYC);
    const order = await call('POST', '/partner/orders', partner, { quote_id: quote.body.id });
    const got = await waitFor('the order.created delivery', () =>
      receiver.received.find((r) => JSON.parse(r.rawBody.toString()).data.object.id === order.body.id),
    );
    expect(got!.headers['x-service-event']).toBe('order.created');
    const deliveries = await waitFor('a succeeded order.created delivery', async () => {
      const subs = await call('GET', '/partner/webhooks', partner);
      const list = await call('GET', `/partner/webhooks/${subs.body.data[0].id}/deliveries`, partner);
      return list.body.data.find(
        (d: { event_type: string; status: string }) => d.event_type === 'order.created' && d.status === 'succeeded',
      );
    });
    expect(deliveries.attempts[0]).toMatchObject({ attempt: 1, response_status: 200, error_kind: null, trigger: 'scheduled' });
  });
});
