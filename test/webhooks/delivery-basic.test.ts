import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectStatus, newOrder } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

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
    const api = clientFor(partner);
    const created = expectStatus(201, await api.POST('/webhooks', { body: { url: receiver.url, description: 'main' } }));
    expect(created.secret).toMatch(/^whsec_/);
    const test = expectStatus(202, await api.POST('/webhooks/{id}/test', { params: { path: { id: created.id } } }));
    const got = await waitFor('the webhook.test delivery', () =>
      receiver.received.find((r) => r.headers['x-service-event-id'] === test.id),
    );
    expect(got).toBeTruthy();
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-service-event']).toBe('webhook.test');
    expect(verifySpec(created.secret, got!.headers['x-service-signature']!, got!.rawBody)).toBe(true);
    const body = JSON.parse(got!.rawBody.toString());
    expect(body).toMatchObject({
      id: test.id,
      object: 'event',
      type: 'webhook.test',
      livemode: false,
      data: { object: { id: created.id, status: 'enabled' } },
    });
  });

  it('delivers order events to a subscription with empty filters', async () => {
    const order = await newOrder(partner);
    const got = await waitFor('the order.created delivery', () =>
      receiver.received.find((r) => JSON.parse(r.rawBody.toString()).data.object.id === order.id),
    );
    expect(got!.headers['x-service-event']).toBe('order.created');
    const deliveries = await waitFor('a succeeded order.created delivery', async () => {
      const api = clientFor(partner);
      const subs = expectStatus(200, await api.GET('/partner/webhooks'));
      const list = expectStatus(200, await api.GET('/partner/webhooks/{id}/deliveries', { params: { path: { id: subs.data[0]!.id } } }));
      return list.data.find((d) => d.event_type === 'order.created' && d.status === 'succeeded');
    });
    expect(deliveries.attempts[0]).toMatchObject({ attempt: 1, response_status: 200, error_kind: null, trigger: 'scheduled' });
  });
});
