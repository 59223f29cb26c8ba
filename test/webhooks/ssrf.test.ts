import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { createWebhookClient } from '@/server/delivery/http-client';
import type { Resolver } from '@/server/delivery/url-policy';
import { call, clientFor, expectStatus } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { startReceiver } from '../support/receiver';
import { approveGoLive, createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The real service WITHOUT WEBHOOK_ALLOW_PRIVATE_NETWORKS: the address policy is on, as in production.
// Names are pointed at chosen addresses through the service's one resolver for webhook hosts, given at start.

const PUBLIC = '93.184.216.34';

let svc: TestService;
let partner: TestPartner;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const names = new Map<string, string[] | (() => string[])>();

beforeAll(async () => {
  const resolver: Resolver = async (host) => {
    const answer = names.get(host);
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return typeof answer === 'function' ? answer() : answer;
  };
  svc = await startTestService({ WEBHOOK_RETRY_SCHEDULE: '1,1', WEBHOOK_TIMEOUT_MS: '3000' }, { resolver });
  expect(svc.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(false);
  partner = await createTestPartner(svc);
  // A real receiver on loopback: if any check were missing, the requests below WOULD reach it.
  receiver = await startReceiver();
  names.set('public.test', [PUBLIC]);
  names.set('internal.test', ['10.1.2.3']);
  names.set('metadata.test', ['169.254.169.254']);
  names.set('mixed.test', [PUBLIC, '127.0.0.1']);
});
afterAll(() => receiver.close());

type ErrorBody = { error: { code: string; param?: string; message: string; errors?: { param: string; code: string; message: string }[] } };

async function deleteAllSubscriptions() {
  const api = clientFor(partner);
  const list = expectStatus(200, await api.GET('/partner/webhooks', { params: { query: { limit: 100 } } }));
  for (const sub of list.data) expectStatus(200, await api.DELETE('/partner/webhooks/{id}', { params: { path: { id: sub.id } } }));
}

const create = (url: string, who: TestPartner = partner) => clientFor(who).POST('/partner/webhooks', { body: { url } });
const patchUrl = (id: string, url: string) =>
  clientFor(partner).PATCH('/partner/webhooks/{id}', { params: { path: { id } }, body: { url } });
const sendTest = async (id: string) =>
  expectStatus(202, await clientFor(partner).POST('/partner/webhooks/{id}/test', { params: { path: { id } } }));

describe('webhook URL validation at create and update', () => {
  it.each([
    'https://127.0.0.1/hooks',
    'https://2130706433/hooks',
    'https://0x7f.1/hooks',
    'https://localhost/hooks',
    'https://localhost./hooks',
    'https://[::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://[::7f00:1]/hooks',
    'https://[64:ff9b::a00:1]/hooks',
    'https://[2002:a00:1::1]/hooks',
    'https://[fd12::1]/hooks',
    'https://0.0.0.0/hooks',
    'https://10.0.0.1/hooks',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/hooks',
    'https://internal.test/hooks',
    'https://metadata.test/hooks',
    'https://mixed.test/hooks',
  ])('POST %s → 400 url_blocked_address', async (url) => {
    const res = await create(url);
    expect(res.response.status).toBe(400);
    expect(res.error?.error).toMatchObject({ code: 'url_blocked_address', param: 'url' });
  });

  it('accepts a public name, and stores the URL as parsed', async () => {
    expect(expectStatus(201, await create('https://PUBLIC.test./hooks')).url).toBe('https://public.test./hooks');
    await deleteAllSubscriptions();
  });

  it.each([
    ['http://public.test/hooks', 'url_not_https'],
    ['ftp://public.test/hooks', 'url_not_https'],
    ['https://user:pass@public.test/hooks', 'url_invalid'],
    ['https://user@8.8.8.8/hooks', 'url_invalid'],
    ['not a url', 'url_invalid'],
    ['https://nowhere.test/hooks', 'url_unresolvable'],
  ])('POST %s → 400 %s', async (url, code) => {
    const res = await create(url);
    expect(res.response.status).toBe(400);
    expect(res.error?.error).toMatchObject({ code, param: 'url' });
  });

  it('refuses a URL longer than 2048 characters, naming url', async () => {
    const base = 'https://public.test/';
    expectStatus(201, await create(base + 'a'.repeat(2048 - base.length)));
    const res = await create(base + 'a'.repeat(2049 - base.length));
    expect(res.response.status).toBe(400);
    expect(res.error?.error.param).toBe('url');
    expect(res.error?.error.message).toMatch(/2048/);
    await deleteAllSubscriptions();
  });

  it('refuses an unknown event type in event_filters, naming the entry and the value', async () => {
    // Raw: an event type outside the document's enum.
    const res = await call('POST', '/partner/webhooks', partner, {
      url: 'https://public.test/hooks',
      event_filters: ['order.created', 'order.exploded'],
    });
    expect(res.status).toBe(400);
    const { error } = res.body as ErrorBody;
    expect(error.param).toBe('event_filters.1');
    expect(error.message).toContain('order.exploded');
    const patch = expectStatus(201, await create('https://public.test/hooks'));
    const upd = await call('PATCH', `/partner/webhooks/${patch.id}`, partner, { event_filters: ['nope.nope'] });
    expect(upd.status).toBe(400);
    expect((upd.body as ErrorBody).error.param).toBe('event_filters.0');
    expect((upd.body as ErrorBody).error.message).toContain('nope.nope');
    await deleteAllSubscriptions();
  });

  it('refuses a private URL on PATCH and keeps the old one', async () => {
    const created = expectStatus(201, await create('https://public.test/hooks'));
    for (const url of ['https://127.0.0.1/hooks', 'https://internal.test/hooks', 'https://[fe80::1]/hooks']) {
      const res = await patchUrl(created.id, url);
      expect(res.response.status).toBe(400);
      expect(res.error?.error).toMatchObject({ code: 'url_blocked_address', param: 'url' });
    }
    const http = await patchUrl(created.id, 'http://public.test/hooks');
    expect(http.error?.error).toMatchObject({ code: 'url_not_https', param: 'url' });
    const read = await clientFor(partner).GET('/partner/webhooks/{id}', { params: { path: { id: created.id } } });
    expect(expectStatus(200, read).url).toBe('https://public.test/hooks');
    await deleteAllSubscriptions();
  });

  it('allows at most 20 subscriptions per partner and environment', async () => {
    for (let i = 0; i < 20; i++) expectStatus(201, await create(`https://public.test/hooks/${i}`));
    const res = await create('https://public.test/hooks/21');
    expect(res.response.status).toBe(422);
    expect(res.error?.error.code).toBe('subscription_limit_reached');
    // The other environment has a limit of its own.
    await approveGoLive(cliContext(svc.rt, 'test'), partner.partnerId);
    const production = await createTestPartner(svc, { environment: 'production', partnerId: partner.partnerId });
    const other = expectStatus(201, await create('https://public.test/prod', production));
    expectStatus(200, await clientFor(production).DELETE('/partner/webhooks/{id}', { params: { path: { id: other.id } } }));
    await deleteAllSubscriptions();
  });
});

type Delivery = {
  status: string;
  attempt_count: number;
  attempts: { attempt: number; error_kind: string | null; error_message: string | null; response_status: number | null }[];
};

async function deliveriesOf(id: string): Promise<Delivery[]> {
  return expectStatus(200, await clientFor(partner).GET('/partner/webhooks/{id}/deliveries', { params: { path: { id } } })).data;
}

describe('the check again at delivery (DNS rebinding)', () => {
  // The receiver listens on '::' (loopback included) and its certificate names receiver.test, so a
  // request to https://receiver.test:<port>/ that reached 127.0.0.1 or ::1 would complete TLS, be
  // answered 200 and be recorded (test/webhooks/private-networks.test.ts shows exactly that). Node
  // refuses the certificate's two-label wildcard *.test, so any other name would fail at TLS and
  // prove nothing.
  const receiverUrl = () => `https://receiver.test:${receiver.port}/hooks`;

  it('a name that was public at create and is loopback at delivery: attempt blocked_address, nothing sent', async () => {
    names.set('receiver.test', [PUBLIC]);
    const created = expectStatus(201, await create(receiverUrl()));
    names.set('receiver.test', ['127.0.0.1', '::1']);
    await sendTest(created.id);
    // Every attempt of the compressed schedule (1 + 2 retries) is refused, then the delivery fails.
    const failed = await waitFor('the delivery to fail', async () => (await deliveriesOf(created.id)).find((d) => d.status === 'failed'), {
      timeoutMs: 15_000,
    });
    expect(failed).toBeTruthy();
    expect(failed!.attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    for (const a of failed!.attempts) {
      expect(a).toMatchObject({ error_kind: 'blocked_address', response_status: null });
      // The partner's delivery log says why, not what the name resolves to.
      expect(a.error_message).toMatch(/publicly routable/);
      expect(a.error_message).not.toMatch(/127\.0\.0\.1|::1/);
    }
    expect(receiver.received).toEqual([]);
    await deleteAllSubscriptions();
  });

  it('the connect-time pin: public for the check, loopback for the connection → blocked, nothing sent', async () => {
    // attemptDeliveries checks the URL (one resolver call), then undici's connect-time lookup resolves
    // again (a second call). Answering public to the first call of each attempt and loopback to the
    // second models a rebinding DNS server with TTL 0: the policy check passes, and only the lookup's
    // own check stands between the socket and loopback. It refuses every loopback answer, the connect
    // fails with EBLOCKEDADDRESS, and the attempt records blocked_address.
    names.set('receiver.test', [PUBLIC]);
    const created = expectStatus(201, await create(receiverUrl()));
    let calls = 0;
    names.set('receiver.test', () => (++calls % 2 === 1 ? [PUBLIC] : ['127.0.0.1', '::1']));
    await sendTest(created.id);
    const failed = await waitFor('the delivery to fail', async () => (await deliveriesOf(created.id)).find((d) => d.status === 'failed'), {
      timeoutMs: 15_000,
    });
    expect(failed).toBeTruthy();
    expect(failed!.attempts).toHaveLength(3);
    for (const a of failed!.attempts) expect(a).toMatchObject({ error_kind: 'blocked_address', response_status: null });
    // Two resolutions per attempt: the check passed each time and the connect-time lookup refused.
    expect(calls).toBe(6);
    expect(receiver.received).toEqual([]);
    await deleteAllSubscriptions();
  });
});

describe('the webhook client alone (server/webhooks/http-client.ts)', () => {
  // A second receiver, so this control's deliveries cannot be confused with the ones that must not arrive.
  let control: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    control = await startReceiver();
  });
  afterAll(() => control.close());

  const client = (allowPrivate: boolean, answer: string[]) =>
    createWebhookClient({ resolve: async () => answer, allowPrivate, timeoutMs: 3000, userAgent: 'ssrf-test' });

  it('connects to loopback through a name when private networks are allowed (the control: the path is live)', async () => {
    const c = client(true, ['127.0.0.1']);
    const out = await c.post(`https://receiver.test:${control.port}/ok`, { 'content-type': 'application/json' }, '{}');
    await c.close();
    expect(out).toMatchObject({ kind: 'response', status: 200 });
    expect(control.received.map((r) => r.path)).toEqual(['/ok']);
  });

  it.each([[['127.0.0.1']], [['::1']], [['127.0.0.1', '::1']], [['::ffff:127.0.0.1']], [['10.0.0.1', '127.0.0.1']]])(
    'refuses to connect when the name resolves to %j, and sends nothing',
    async (answer) => {
      const before = control.received.length;
      const c = client(false, answer);
      const out = await c.post(`https://receiver.test:${control.port}/blocked`, { 'content-type': 'application/json' }, '{"secret":1}');
      await c.close();
      expect(out).toMatchObject({ kind: 'error', errorKind: 'blocked_address' });
      expect(control.received.length).toBe(before);
    },
  );

  it('a name that does not resolve is a dns error, not a blocked address', async () => {
    const c = client(false, []);
    const out = await c.post(`https://receiver.test:${control.port}/none`, {}, '{}');
    await c.close();
    expect(out).toMatchObject({ kind: 'error', errorKind: 'dns' });
  });

  it('does not follow a redirect, even to a public name', async () => {
    control.setResponder(() => ({ status: 307, headers: { location: `https://receiver.test:${control.port}/elsewhere` } }));
    const c = client(true, ['127.0.0.1']);
    const before = control.received.length;
    const out = await c.post(`https://receiver.test:${control.port}/redirect`, {}, '{}');
    await c.close();
    control.setResponder(() => ({ status: 200, body: 'ok' }));
    expect(out).toMatchObject({ kind: 'response', status: 307 });
    expect(control.received.slice(before).map((r) => r.path)).toEqual(['/redirect']);
  });
});
