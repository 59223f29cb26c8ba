import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, expectStatus, newOrder, newSubscription, type CreateSubscription } from '../support/partner-api';
import { settle, waitFor } from '../support/poll';
import { startReceiver, type ReceivedRequest, type Responder } from '../support/receiver';
import { cliContext } from '@/server/cli/operator-context';
import { fanOutEvents } from '@/server/delivery/fan-out';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// Delivery semantics (spec parts 2, 5, 6; DESIGN.md section 5), over real HTTPS to loopback receivers.
// Signatures are checked here from the spec's words, independently of server/webhooks/signing.ts.

/** Spec part 5: `t=<unix>,v1=<hex>`, HMAC-SHA256 over `<t>.<raw body>` keyed with the secret string. */
function specSignatureMatches(secret: string, header: string, raw: Buffer): boolean {
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex'));
  return parts.some(([k, v]) => k === 'v1' && v!.length === expected.length && timingSafeEqual(Buffer.from(v!), expected));
}

/** Standard Webhooks: `v1,<base64>` over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes after `whsec_`. */
function standardSignatureMatches(secret: string, req: ReceivedRequest): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${req.headers['webhook-id']}.${req.headers['webhook-timestamp']}.`)
    .update(req.rawBody)
    .digest('base64');
  return req.headers['webhook-signature']!.split(' ').some((s) => s === `v1,${expected}`);
}

const headerT = (req: ReceivedRequest) => Number(/(?:^|,)t=(\d+)/.exec(req.headers['x-service-signature']!)![1]);
const eventOf = (req: ReceivedRequest) =>
  JSON.parse(req.rawBody.toString()) as { id: string; type: string; data: { object: { id: string } } };

let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const responders = new Map<string, Responder>();

beforeAll(async () => {
  svc = await startTestService({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1',
    WEBHOOK_TIMEOUT_MS: '700',
    WEBHOOK_AUTO_DISABLE_AFTER_HOURS: '0.0005', // 1.8 s
  });
  // One receiver; each test answers on a path of its own.
  receiver = await startReceiver((req, i) => (responders.get(req.path.split('?')[0]!) ?? (() => ({ status: 200 })))(req, i));
});
afterAll(() => receiver.close());

let pathCount = 0;
/** A fresh partner and a subscription on a path of its own, answered by `respond`. */
async function subscribe(respond: Responder = () => ({ status: 200 }), extra: Partial<CreateSubscription> = {}, who?: TestPartner) {
  const partner = who ?? (await createTestPartner(svc));
  const path = `/hooks/${++pathCount}`;
  responders.set(path, respond);
  const created = await newSubscription(partner, { url: `https://localhost:${receiver.port}${path}`, ...extra });
  return {
    partner,
    path,
    id: created.id,
    secret: created.secret,
    at: (p = path) => receiver.received.filter((r) => r.path === p),
  };
}

async function deliveries(partner: TestPartner, id: string) {
  return expectStatus(200, await clientFor(partner).GET('/partner/webhooks/{id}/deliveries', { params: { path: { id } } })).data;
}

type Sub = Awaited<ReturnType<typeof subscribe>>;
const webhookOf = async (sub: Sub) =>
  expectStatus(200, await clientFor(sub.partner).GET('/partner/webhooks/{id}', { params: { path: { id: sub.id } } }));
const sendTest = async (sub: Sub) =>
  expectStatus(202, await clientFor(sub.partner).POST('/partner/webhooks/{id}/test', { params: { path: { id: sub.id } } }));
const rotate = async (sub: Sub) =>
  expectStatus(200, await clientFor(sub.partner).POST('/partner/webhooks/{id}/rotate-secret', { params: { path: { id: sub.id } } })).secret;
const setStatus = async (sub: Sub, status: 'enabled' | 'disabled') =>
  expectStatus(200, await clientFor(sub.partner).PATCH('/partner/webhooks/{id}', { params: { path: { id: sub.id } }, body: { status } }));

describe('signatures and headers', () => {
  it('signs per spec part 5 and per Standard Webhooks, with t the attempt time, and sends the documented headers', async () => {
    const sub = await subscribe();
    const sentAt = Math.floor(Date.now() / 1000);
    const test = await sendTest(sub);
    const [req] = await waitFor('the webhook.test delivery', () => sub.at().length > 0 && sub.at());
    expect(req).toBeTruthy();
    expect(specSignatureMatches(sub.secret, req!.headers['x-service-signature']!, req!.rawBody)).toBe(true);
    expect(specSignatureMatches(sub.secret.replace(/.$/, '_'), req!.headers['x-service-signature']!, req!.rawBody)).toBe(false);
    expect(standardSignatureMatches(sub.secret, req!)).toBe(true);
    expect(Math.abs(headerT(req!) - Math.floor(req!.at / 1000))).toBeLessThanOrEqual(1);
    expect(headerT(req!)).toBeGreaterThanOrEqual(sentAt);
    expect(req!.headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-event': 'webhook.test',
      'x-service-event-id': test.id,
      'webhook-id': test.id,
      'webhook-timestamp': String(headerT(req!)),
    });
    expect(req!.headers['user-agent']).toMatch(/^PartnerDeliveryPlatform-Webhooks\//);
    expect(req!.method).toBe('POST');
  });
});

describe('retries', () => {
  it('a receiver failing twice then succeeding: three attempts, each with the same id and body, a fresh t each time', async () => {
    let mine = 0; // the responder's own index counts every request on the shared receiver
    const sub = await subscribe(() => ({ status: mine++ < 2 ? 500 : 200 }));
    const order = await newOrder(sub.partner);
    const got = await waitFor('three attempts', () => sub.at().length >= 3 && sub.at(), { timeoutMs: 15_000 });
    expect(got).toBeTruthy();
    const [a, b, c] = got as ReceivedRequest[];
    for (const r of [b!, c!]) {
      expect(r.rawBody.equals(a!.rawBody)).toBe(true);
      expect(r.headers['x-service-event-id']).toBe(a!.headers['x-service-event-id']);
      expect(specSignatureMatches(sub.secret, r.headers['x-service-signature']!, r.rawBody)).toBe(true);
    }
    expect(eventOf(a!).data.object.id).toBe(order.id);
    // Schedule 1,1 with ±20 % jitter: each retry is at least 0.8 s after the one before, and its t moves on.
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(700);
    expect(headerT(c!)).toBeGreaterThan(headerT(a!));
    const [delivery] = await waitFor('the delivery to succeed', async () => {
      const list = await deliveries(sub.partner, sub.id);
      return list[0]?.status === 'succeeded' && list;
    });
    expect(delivery!.attempts.map((x) => [x.attempt, x.response_status, x.error_kind])).toEqual([
      [1, 500, 'http_status'],
      [2, 500, 'http_status'],
      [3, 200, null],
    ]);
    await settle(1500, 'to show that no attempt follows the success');
    expect(sub.at()).toHaveLength(3); // nothing after the success
  });

  it('a receiver that times out: each attempt is a timeout, and it is retried', async () => {
    const sub = await subscribe(() => ({ status: 200, delayMs: 2000 }));
    await newOrder(sub.partner);
    const [delivery] = await waitFor(
      'two timed-out attempts',
      async () => {
        const list = await deliveries(sub.partner, sub.id);
        return (list[0]?.attempts.length ?? 0) >= 2 && list;
      },
      { timeoutMs: 15_000 },
    );
    expect(delivery!.attempts.slice(0, 2)).toMatchObject([
      { attempt: 1, error_kind: 'timeout', response_status: null },
      { attempt: 2, error_kind: 'timeout', response_status: null },
    ]);
    expect(sub.at().length).toBeGreaterThanOrEqual(2);
  });

  it('a receiver answering 40 KiB: the attempt succeeds and keeps the first 16 KiB of the answer', async () => {
    const body = 'a'.repeat(16 * 1024 - 1) + 'bc' + 'd'.repeat(24 * 1024);
    const sub = await subscribe(() => ({ status: 200, body }));
    await newOrder(sub.partner);
    const [delivery] = await waitFor('the recorded success', async () => {
      const got = await deliveries(sub.partner, sub.id);
      return got[0]?.status === 'succeeded' && got;
    });
    const recorded = delivery!.attempts[0]!.response_body!;
    expect(recorded).toHaveLength(16 * 1024);
    expect(recorded.endsWith('ab')).toBe(true);
  });

  it('a 429 with Retry-After waits at least that long', async () => {
    let mine = 0;
    const sub = await subscribe(() => (mine++ === 0 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 }));
    await newOrder(sub.partner);
    const got = await waitFor('the retry after the 429', () => sub.at().length >= 2 && sub.at(), { timeoutMs: 15_000 });
    expect(got).toBeTruthy();
    const [a, b] = got as ReceivedRequest[];
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(2900);
  });

  it('a redirect is not followed and counts as a failure', async () => {
    const target = await subscribe();
    const sub = await subscribe(() => ({ status: 302, headers: { location: `https://localhost:${receiver.port}${target.path}` } }));
    await newOrder(sub.partner);
    const [delivery] = await waitFor('the first attempt to be recorded', async () => {
      const list = await deliveries(sub.partner, sub.id);
      return list[0]?.attempts.length && list;
    });
    expect(delivery!.attempts[0]).toMatchObject({ attempt: 1, response_status: 302, error_kind: 'http_status' });
    expect(target.at()).toHaveLength(0);
  });

  it('410 Gone: no retry, the delivery fails and the subscription is disabled', async () => {
    const sub = await subscribe(() => ({ status: 410 }));
    await newOrder(sub.partner);
    const webhook = await waitFor('the subscription to be disabled', async () => {
      const res = await webhookOf(sub);
      return res.status === 'disabled' && res;
    });
    expect(webhook).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    const [delivery] = await deliveries(sub.partner, sub.id);
    expect(delivery).toMatchObject({ status: 'failed' });
    expect(delivery!.attempts).toHaveLength(1);
    await settle(1500, 'to show that the 410 is not retried');
    expect(sub.at()).toHaveLength(1);
  });

  it('failing for the whole auto-disable period disables the subscription (too_many_failures)', async () => {
    const sub = await subscribe(() => ({ status: 503 }));
    await newOrder(sub.partner);
    const webhook = await waitFor(
      'the subscription to be disabled',
      async () => {
        const res = await webhookOf(sub);
        return res.status === 'disabled' && res;
      },
      { timeoutMs: 15_000 },
    );
    expect(webhook).toMatchObject({ status: 'disabled', disabled_reason: 'too_many_failures' });
  });
});

describe('routing', () => {
  it('event_filters: a filtered subscription gets only its types, an unfiltered one everything, each event once', async () => {
    const all = await subscribe();
    const cancelledOnly = await subscribe(() => ({ status: 200 }), { event_filters: ['order.cancelled'] }, all.partner);
    const order = await newOrder(all.partner);
    const cancelled = await clientFor(all.partner).POST('/partner/orders/{id}/cancel', {
      params: { path: { id: order.id } },
      body: { reason: 'test' },
    });
    expectStatus(200, cancelled);
    await waitFor(
      'both events to the unfiltered subscription and the cancellation to the filtered one',
      () => all.at().length >= 2 && cancelledOnly.at().length >= 1,
    );
    await settle(500, 'to show that no event arrives twice or at the wrong subscription');
    expect(
      all
        .at()
        .map((r) => eventOf(r).type)
        .sort(),
    ).toEqual(['order.cancelled', 'order.created']);
    expect(cancelledOnly.at().map((r) => eventOf(r).type)).toEqual(['order.cancelled']);
  });

  it('webhook.test goes only to the subscription it was sent for', async () => {
    const one = await subscribe();
    const other = await subscribe(() => ({ status: 200 }), {}, one.partner);
    const test = await sendTest(one);
    await waitFor('the webhook.test delivery', () => one.at().length > 0);
    await settle(500, 'to show that the other subscription gets nothing');
    expect(one.at().map((r) => eventOf(r).id)).toEqual([test.id]);
    expect(other.at()).toHaveLength(0);
  });

  it('a subscription hears only of events after it was created, however late their fan-out runs', async () => {
    const partner = await createTestPartner(svc);
    const order = await newOrder(partner);
    const [event] = await svc.rt.db.execute<{ id: string }>(sql`select id from events where object_id = ${order.id}`);
    const sub = await subscribe(() => ({ status: 200 }), {}, partner);
    // A fan-out that runs (again, or late) after the subscription exists: as a worker would.
    const result = await fanOutEvents({ ctx: cliContext(svc.rt), input: { eventIds: [event!.id], holder: 'test' } });
    expect(result).toEqual({ found: 1, claimed: [], skipped: 0 });
    expect(await deliveries(partner, sub.id)).toEqual([]);
  });

  it('a disabled subscription records skipped deliveries and receives nothing until enabled again', async () => {
    const sub = await subscribe();
    await setStatus(sub, 'disabled');
    const missed = await newOrder(sub.partner);
    const skipped = await waitFor('a skipped delivery', async () =>
      (await deliveries(sub.partner, sub.id)).find((d) => d.status === 'skipped'),
    );
    expect(skipped).toMatchObject({ event_type: 'order.created', status: 'skipped', attempts: [] });
    expect(sub.at()).toHaveLength(0);
    await setStatus(sub, 'enabled');
    const next = await newOrder(sub.partner);
    await waitFor('a delivery once enabled again', () => sub.at().length > 0);
    expect(sub.at().map((r) => eventOf(r).data.object.id)).toEqual([next.id]);
    expect(missed.id).not.toBe(next.id);
  });
});

describe('secret rotation', () => {
  it('returns the new secret once; for the overlap every delivery is signed with both secrets', async () => {
    const sub = await subscribe();
    const fresh = await rotate(sub);
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(sub.secret);
    expect(await webhookOf(sub)).not.toHaveProperty('secret');
    await sendTest(sub);
    const [req] = await waitFor('the webhook.test delivery', () => sub.at().length > 0 && sub.at());
    expect(req!.headers['x-service-signature']!.match(/v1=/g)).toHaveLength(2);
    expect(specSignatureMatches(fresh, req!.headers['x-service-signature']!, req!.rawBody)).toBe(true);
    expect(specSignatureMatches(sub.secret, req!.headers['x-service-signature']!, req!.rawBody)).toBe(true);
    expect(standardSignatureMatches(fresh, req!)).toBe(true);
    expect(standardSignatureMatches(sub.secret, req!)).toBe(true);
  });

  it('each replaced secret keeps signing for its own overlap: S1 -> S2 -> S3 signs with all three; at most four signatures', async () => {
    const sub = await subscribe();
    const secrets = [sub.secret];
    for (let i = 0; i < 2; i++) secrets.push(await rotate(sub));
    const test = await sendTest(sub);
    const req = await waitFor('the webhook.test delivery', () => sub.at().find((r) => r.headers['x-service-event-id'] === test.id));
    const header = req.headers['x-service-signature']!;
    expect(header.match(/v1=/g)).toHaveLength(3);
    for (const secret of secrets) {
      expect(specSignatureMatches(secret, header, req.rawBody), secret).toBe(true);
      expect(standardSignatureMatches(secret, req), secret).toBe(true);
    }

    // Two more rotations within the day: the newest and the three secrets it replaced most recently sign.
    for (let i = 0; i < 2; i++) secrets.push(await rotate(sub));
    const again = await sendTest(sub);
    const last = await waitFor('the second webhook.test delivery', () =>
      sub.at().find((r) => r.headers['x-service-event-id'] === again.id),
    );
    const lastHeader = last.headers['x-service-signature']!;
    expect(lastHeader.match(/v1=/g)).toHaveLength(4);
    expect(secrets.map((s) => specSignatureMatches(s, lastHeader, last.rawBody))).toEqual([false, true, true, true, true]);
  });
});
