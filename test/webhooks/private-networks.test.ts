import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemResolver, type Resolver } from '@/server/delivery/url-policy';
import { clientFor, expectStatus, newSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (development and tests only) lifts the address policy, and
// nothing else: https, credentials and length are still checked. This file is also the control for
// test/webhooks/ssrf.test.ts: the same receiver.test URL on a loopback receiver that is refused there
// is delivered here, so the refusals there are the policy's doing, not a setup that could never connect.

let svc: TestService;
let partner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  const resolver: Resolver = async (host) => {
    if (host === 'receiver.test') return ['127.0.0.1', '::1'];
    if (host === 'localhost') return systemResolver(host);
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1' }, { resolver });
  expect(svc.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(true);
  partner = await createTestPartner(svc);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const sendTest = async (id: string) =>
  expectStatus(202, await clientFor(partner).POST('/partner/webhooks/{id}/test', { params: { path: { id } } }));
const deliveriesOf = async (id: string) =>
  expectStatus(200, await clientFor(partner).GET('/partner/webhooks/{id}/deliveries', { params: { path: { id } } })).data;

describe('with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
  it.each([
    ['localhost', (port: number) => `https://localhost:${port}/hooks/localhost`],
    ['127.0.0.1', (port: number) => `https://127.0.0.1:${port}/hooks/v4`],
    ['[::1]', (port: number) => `https://[::1]:${port}/hooks/v6`],
    ['a name resolving to loopback (as in ssrf.test.ts)', (port: number) => `https://receiver.test:${port}/hooks/name`],
  ])('a loopback receiver via %s is accepted and delivered', async (_label, urlFor) => {
    const url = urlFor(receiver.port);
    const created = await newSubscription(partner, { url });
    expect(created.url).toBe(url);
    const test = await sendTest(created.id);
    const got = await waitFor('the webhook.test delivery', () =>
      receiver.received.find((r) => r.headers['x-service-event-id'] === test.id),
    );
    expect(got).toBeTruthy();
    expect(got!.path).toBe(new URL(url).pathname);
    const delivery = await waitFor('a succeeded delivery', async () =>
      (await deliveriesOf(created.id)).find((d) => d.status === 'succeeded'),
    );
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, response_status: 200, error_kind: null });
  });

  it('does not follow a redirect: a 307 is a failed attempt and the target is never asked', async () => {
    receiver.setResponder((req) =>
      req.path === '/hooks/redirect'
        ? { status: 307, headers: { location: `https://127.0.0.1:${receiver.port}/hooks/target` } }
        : { status: 200, body: 'ok' },
    );
    const created = await newSubscription(partner, { url: `https://receiver.test:${receiver.port}/hooks/redirect` });
    await sendTest(created.id);
    const failed = await waitFor(
      'the redirected delivery to fail',
      async () => (await deliveriesOf(created.id)).find((d) => d.status === 'failed'),
      { timeoutMs: 15_000 },
    );
    receiver.setResponder(() => ({ status: 200, body: 'ok' }));
    expect(failed).toBeTruthy();
    expect(failed.attempts).toHaveLength(3);
    for (const a of failed.attempts) expect(a).toMatchObject({ response_status: 307, error_kind: 'http_status' });
    expect(receiver.received.filter((r) => r.path === '/hooks/redirect')).toHaveLength(3);
    expect(receiver.received.filter((r) => r.path === '/hooks/target')).toHaveLength(0);
  });

  it('still refuses http://, credentials, over-long URLs and names that do not resolve', async () => {
    const cases: [string, string][] = [
      [`http://127.0.0.1:${receiver.port}/hooks`, 'url_not_https'],
      [`https://user:pass@127.0.0.1:${receiver.port}/hooks`, 'url_invalid'],
      [`https://127.0.0.1/${'a'.repeat(2049)}`, ''],
      ['https://nowhere.test/hooks', 'url_unresolvable'],
    ];
    for (const [url, code] of cases) {
      const res = await clientFor(partner).POST('/partner/webhooks', { body: { url } });
      expect(res.response.status).toBe(400);
      expect(res.error?.error.param).toBe('url');
      if (code) expect(res.error?.error.code).toBe(code);
    }
  });
});
