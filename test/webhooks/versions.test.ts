import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_VERSION, LATEST_VERSION } from '@/server/versions/registry';
import { clientFor, expectStatus, newOrder, newSubscription, type CreateSubscription } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { parsePrometheus, scrape, sumSamples } from '../support/prometheus';
import { startReceiver, type ReceivedRequest, type Responder } from '../support/receiver';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// Webhook deliveries per subscription version (issue 25), over real HTTPS to a loopback receiver: one event,
// two shapes, each signed over its own bytes; the first version's bytes exactly those sent before versions;
// retries resending the same bytes; a redelivery rendered in the subscription's version now.

/** Spec part 5: `t=<unix>,v1=<hex>`, HMAC-SHA256 over `<t>.<raw body>` keyed with the secret string (checked here from the spec's words). */
function signedBy(secret: string, req: ReceivedRequest): boolean {
  const parts = req.headers['x-service-signature']!.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(req.rawBody).digest('hex'));
  return parts.some(([k, v]) => k === 'v1' && v!.length === expected.length && timingSafeEqual(Buffer.from(v!), expected));
}

let svc: TestService;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const responders = new Map<string, Responder>();
let partner: TestPartner;

beforeAll(async () => {
  svc = await startTestService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1,1,1' });
  receiver = await startReceiver((req, i) => (responders.get(req.path) ?? (() => ({ status: 200 })))(req, i));
  partner = await createTestPartner(svc);
});
afterAll(() => receiver.close());

let paths = 0;
// The first version as the document's enum types it (the registry's constant is a plain string).
const FIRST = FIRST_VERSION as NonNullable<CreateSubscription['api_version']>;

async function subscribe(body: Omit<CreateSubscription, 'url'>, respond?: Responder) {
  const path = `/hooks/v${++paths}`;
  if (respond) responders.set(path, respond);
  const created = await newSubscription(partner, { url: `https://localhost:${receiver.port}${path}`, ...body });
  return {
    id: created.id,
    secret: created.secret,
    apiVersion: created.api_version,
    at: () => receiver.received.filter((r) => r.path === path),
  };
}

const bodyOf = (req: ReceivedRequest) => JSON.parse(req.rawBody.toString());
const eventIdOf = (req: ReceivedRequest) => req.headers['x-service-event-id'];

async function storedText(eventId: string): Promise<string> {
  const [row] = await svc.rt.db.execute<{ text: string }>(sql`select envelope::text as text from events where id = ${eventId}`);
  return row!.text;
}

describe('two subscriptions on different versions', () => {
  it('receive the same events in their own shapes, each signed over its own bytes, the first version byte for byte as before', async () => {
    const old = await subscribe({ api_version: FIRST, event_filters: ['order.created', 'order.courier_assigned'] });
    const latest = await subscribe({ event_filters: ['order.created', 'order.courier_assigned'] });
    expect([old.apiVersion, latest.apiVersion]).toEqual([FIRST_VERSION, LATEST_VERSION]);
    const order = await newOrder(partner, { metadata: { '10': 'a', b: 'c', ü: 'd' } });
    const api = clientFor(partner);
    expectStatus(
      200,
      await api.POST('/partner/orders/{id}/simulate', { params: { path: { id: order.id } }, body: { status: 'courier_assigned' } }),
    );
    const [a, b] = await waitFor(
      'both events at both subscriptions',
      () => old.at().length >= 2 && latest.at().length >= 2 && [old.at(), latest.at()],
    );

    const ids = (reqs: ReceivedRequest[]) => reqs.map(eventIdOf).sort();
    expect(ids(a)).toEqual(ids(b));
    for (const req of a) {
      expect(signedBy(old.secret, req)).toBe(true);
      expect(req.headers['x-service-version']).toBe(FIRST_VERSION);
      // What this delivery sent before versions existed: JSON.stringify of the envelope as stored (jsonb).
      expect(req.rawBody.toString()).toBe(JSON.stringify(JSON.parse(await storedText(eventIdOf(req)!))));
      expect(bodyOf(req)).not.toHaveProperty('api_version');
      expect(bodyOf(req).data.object.status_history.length).toBeGreaterThan(0);
    }
    for (const req of b) {
      expect(signedBy(latest.secret, req)).toBe(true);
      expect(signedBy(old.secret, req)).toBe(false);
      expect(req.headers['x-service-version']).toBe(LATEST_VERSION);
      const event = bodyOf(req);
      expect(event.api_version).toBe(LATEST_VERSION);
      expect(event.data.object).not.toHaveProperty('status_history');
      // The envelope is the event as GET /partner/events/{id} answers it in that version.
      expect(event).toEqual(expectStatus(200, await api.GET('/partner/events/{id}', { params: { path: { id: event.id } } })));
    }
    const assigned = b.map(bodyOf).find((e) => e.type === 'order.courier_assigned');
    expect(assigned.data.previous_attributes).toMatchObject({ status: 'created', courier: null });
    const oldAssigned = a.map(bodyOf).find((e) => e.type === 'order.courier_assigned');
    expect(oldAssigned.data.object.status_history.map((h: { status: string }) => h.status)).toEqual(['created', 'courier_assigned']);
    // The delivery log says which version each delivery and attempt was rendered in.
    const log = expectStatus(200, await api.GET('/partner/webhooks/{id}/deliveries', { params: { path: { id: old.id } } }));
    expect(log.data.map((d) => [d.api_version, d.attempts[0]!.api_version])).toEqual([
      [FIRST_VERSION, FIRST_VERSION],
      [FIRST_VERSION, FIRST_VERSION],
    ]);
    // Attempts and deliveries are counted by the version of their body.
    await waitFor('attempts of both versions counted', async () => {
      const samples = parsePrometheus((await scrape(`${svc.url}/metrics`)).text);
      const of = (name: string, api_version: string) => sumSamples(samples, name, { result: 'succeeded', api_version });
      return [FIRST_VERSION, LATEST_VERSION].every(
        (v) => of('pdp_webhook_attempts_total', v) >= 2 && of('pdp_webhook_deliveries_total', v) >= 2,
      );
    });
  });
});

describe('retries', () => {
  it("resend the first attempt's bytes, even after the subscription moved to another version meanwhile", async () => {
    let answered = 0;
    let release: () => void = () => {};
    const moved = new Promise<void>((resolve) => (release = resolve));
    // The first attempt fails; the second waits until the subscription was PATCHed to the latest version, and fails; the third succeeds.
    const sub = await subscribe({ api_version: FIRST, event_filters: ['order.created'] }, () => {
      answered++;
      return answered === 1 ? { status: 500 } : answered === 2 ? { status: 503, after: moved } : { status: 200 };
    });
    await newOrder(partner);
    await waitFor('the first attempt', () => sub.at().length >= 1);
    const patched = await clientFor(partner).PATCH('/partner/webhooks/{id}', {
      params: { path: { id: sub.id } },
      body: { api_version: LATEST_VERSION as typeof FIRST },
    });
    expect(expectStatus(200, patched).api_version).toBe(LATEST_VERSION);
    release();
    const attempts = await waitFor('three attempts', () => sub.at().length >= 3 && sub.at(), { timeoutMs: 20_000 });
    const [first, ...retries] = attempts as ReceivedRequest[];
    for (const retry of retries) {
      expect(retry.rawBody.equals(first!.rawBody)).toBe(true);
      expect(retry.headers['x-service-version']).toBe(FIRST_VERSION);
      expect(signedBy(sub.secret, retry)).toBe(true);
    }
    // A redelivery asked for now renders the event in the subscription's version now, and says so.
    const eventId = eventIdOf(first!)!;
    const redelivered = await clientFor(partner).POST('/partner/events/{id}/redeliver', {
      params: { path: { id: eventId } },
      body: { webhook_id: sub.id },
    });
    expectStatus(202, redelivered);
    const again = await waitFor('the redelivery', () => sub.at().length >= 4 && sub.at()[3]);
    expect(again.headers['x-service-version']).toBe(LATEST_VERSION);
    expect(eventIdOf(again)).toBe(eventId);
    expect(bodyOf(again)).toMatchObject({ id: eventId, api_version: LATEST_VERSION });
    expect(signedBy(sub.secret, again)).toBe(true);
  });
});
