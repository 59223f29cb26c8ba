import { sql } from 'drizzle-orm';
import createClient, { type Middleware } from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION, createPartnerClient, type PartnerClient, type paths } from '@partner-delivery/client';
import { FIRST_VERSION, LATEST_VERSION } from '@/server/versions/registry';
import { expectStatus } from '../support/partner-api';
import { waitFor } from '../support/poll';
import { createTestPartner, NYC, startTestService, type TestPartner, type TestService } from '../support/service';
import { startSmtpServer } from '../support/smtp';

// Every operation of the OpenAPI document, called once through the typed client with a valid request and
// answered with its success status, so that no route of the document goes without a client call that the
// compiler checks: the last test fails when the document gains an operation this file does not call.

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
let svc: TestService;
let partner: TestPartner;
let api: PartnerClient;
let anonymous: PartnerClient;

/** `METHOD /path/{template}` of each answered call, with its status. */
const called = new Map<string, number>();
const recorder: Middleware = {
  onResponse({ request, schemaPath, response }) {
    if (response.ok) called.set(`${request.method} ${schemaPath}`, response.status);
  },
};

beforeAll(async () => {
  smtp = await startSmtpServer();
  // Workers off: a replay stays queued until it is cancelled (a worker would finish a one-event replay
  // before the cancel arrives). The access request's mail is sent by a second process, with workers.
  svc = await startTestService({ WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', SMTP_URL: smtp.url });
  partner = await createTestPartner(svc);
  api = createPartnerClient({ baseUrl: svc.url, clientId: partner.clientId, apiKey: partner.apiKey });
  api.use(recorder);
  // What a prospective partner has before it has credentials: the public operations need none.
  anonymous = createClient<paths>({ baseUrl: svc.url });
  anonymous.use(recorder);
});
afterAll(() => smtp.close());

// Port 9 (discard) refuses: the deliveries fail, which none of these operations waits for.
const hookUrl = 'https://localhost:9/hooks';

describe('the OpenAPI document', () => {
  it('GET /partner/openapi.json', async () => {
    const doc = expectStatus(200, await anonymous.GET('/partner/openapi.json', { params: { query: { version: API_VERSION } } }));
    expect(doc).toMatchObject({ openapi: expect.any(String) });
  });
});

describe('versions, contacts and the go-live request', () => {
  it('GET /partner/versions, /partner/event-types and /partner/api-version', async () => {
    const versions = expectStatus(200, await api.GET('/partner/versions'));
    expect(versions.data.map((v) => v.id)).toContain(LATEST_VERSION);
    const types = expectStatus(200, await api.GET('/partner/event-types'));
    expect(types.data.map((t) => t.type)).toContain('order.created');
    const pin = expectStatus(200, await api.GET('/partner/api-version'));
    expect(pin.version).toBe(LATEST_VERSION);
  });

  it('POST /partner/api-version/upgrade, then /rollback', async () => {
    const legacy = await createTestPartner(svc);
    // Pinned to the first version, as a partner that existed before versions is, so there is a newer one.
    await svc.rt.db.execute(sql`update partners set first_pin_version = ${FIRST_VERSION} where id = ${legacy.partnerId}`);
    const own = createPartnerClient({ baseUrl: svc.url, clientId: legacy.clientId, apiKey: legacy.apiKey });
    own.use(recorder);
    const up = expectStatus(200, await own.POST('/partner/api-version/upgrade', { body: { version: API_VERSION } }));
    expect([up.version, up.previous_version]).toEqual([LATEST_VERSION, FIRST_VERSION]);
    const back = expectStatus(200, await own.POST('/partner/api-version/rollback'));
    expect([back.version, back.rollback_until]).toEqual([FIRST_VERSION, null]);
  });

  it('PUT and GET /partner/contacts', async () => {
    const set = expectStatus(200, await api.PUT('/partner/contacts', { body: { emails: ['dev@partner.example'] } }));
    expect(set.emails).toEqual(['dev@partner.example']);
    expect(expectStatus(200, await api.GET('/partner/contacts')).emails).toEqual(['dev@partner.example']);
  });

  it('POST /partner/go-live-request', async () => {
    const asked = expectStatus(202, await api.POST('/partner/go-live-request', { body: { note: 'all green' } }));
    expect(asked).toEqual({ partner_id: partner.partnerId, go_live_status: 'requested', go_live_note: 'all green' });
  });
});

describe('quotes, orders and events', () => {
  it('POST and GET /partner/quotes; POST, GET, list, simulate and cancel /partner/orders', async () => {
    const quote = expectStatus(201, await api.POST('/partner/quotes', { body: NYC }));
    expect(expectStatus(200, await api.GET('/partner/quotes/{id}', { params: { path: { id: quote.id } } })).id).toBe(quote.id);

    const order = expectStatus(201, await api.POST('/partner/orders', { body: { quote_id: quote.id, external_id: 'every-op-1' } }));
    expect(order.status).toBe('created');
    expect(expectStatus(200, await api.GET('/partner/orders/{id}', { params: { path: { id: order.id } } })).external_id).toBe('every-op-1');
    const listed = expectStatus(200, await api.GET('/partner/orders', { params: { query: { external_id: 'every-op-1' } } }));
    expect(listed.data.map((o) => o.id)).toEqual([order.id]);

    const moved = expectStatus(200, await api.POST('/partner/orders/{id}/simulate', { params: { path: { id: order.id } }, body: {} }));
    expect(moved.status).toBe('courier_assigned');
    const cancelled = expectStatus(
      200,
      await api.POST('/partner/orders/{id}/cancel', { params: { path: { id: order.id } }, body: { reason: 'changed our mind' } }),
    );
    expect(cancelled.status).toBe('cancelled');

    const events = expectStatus(200, await api.GET('/partner/events', { params: { query: { order_id: order.id } } }));
    expect(events.data.map((e) => e.type)).toContain('order.created');
    const first = events.data[0]!;
    expect(expectStatus(200, await api.GET('/partner/events/{id}', { params: { path: { id: first.id } } })).type).toBe(first.type);
  });
});

// The subscriptions are served twice, under /partner/webhooks and under /webhooks (the older paths): each
// prefix gets the same round.
describe.each(['/partner/webhooks', '/webhooks'] as const)('%s', (prefix) => {
  it('create, list, read, update, rotate, test, redeliver, deliveries, replay, replays, cancel and delete', async () => {
    const path = { id: '' };
    const created = expectStatus(201, await api.POST(prefix, { body: { url: hookUrl, event_filters: ['order.created', 'webhook.test'] } }));
    expect(created.secret).toMatch(/^whsec_/);
    path.id = created.id;
    const params = { path };

    expect(expectStatus(200, await api.GET(prefix)).data.map((s) => s.id)).toContain(created.id);
    expect(expectStatus(200, await api.GET(`${prefix}/{id}`, { params })).url).toBe(hookUrl);
    const updated = expectStatus(200, await api.PATCH(`${prefix}/{id}`, { params, body: { description: 'every operation' } }));
    expect(updated.description).toBe('every operation');
    const rotated = expectStatus(200, await api.POST(`${prefix}/{id}/rotate-secret`, { params }));
    expect(rotated.secret).not.toBe(created.secret);

    const test = expectStatus(202, await api.POST(`${prefix}/{id}/test`, { params }));
    expect(test.type).toBe('webhook.test');
    const redelivered = expectStatus(
      202,
      await api.POST('/partner/events/{id}/redeliver', { params: { path: { id: test.id } }, body: { webhook_id: created.id } }),
    );
    expect(redelivered.webhook_ids).toEqual([created.id]);
    expect(expectStatus(200, await api.GET(`${prefix}/{id}/deliveries`, { params })).data).toEqual(expect.any(Array));

    await api.POST('/partner/orders', { body: { quote_id: expectStatus(201, await api.POST('/partner/quotes', { body: NYC })).id } });
    const since = Math.floor(Date.now() / 1000) - 60;
    const dry = expectStatus(200, await api.POST(`${prefix}/{id}/replay`, { params, body: { since, dry_run: true } }));
    expect(dry.events_matched).toBeGreaterThan(0);
    const replay = expectStatus(202, await api.POST(`${prefix}/{id}/replay`, { params, body: { since } }));
    // 200 answers a dry run, 202 a replay: the type is their union.
    if (!('id' in replay)) throw new Error(`a dry run answered: ${JSON.stringify(replay)}`);
    expect(replay.status).toBe('queued');
    expect(expectStatus(200, await api.GET(`${prefix}/{id}/replays`, { params })).data.map((r) => r.id)).toEqual([replay.id]);
    const one = { path: { id: created.id, replay_id: replay.id } };
    expect(expectStatus(200, await api.GET(`${prefix}/{id}/replays/{replay_id}`, { params: one })).id).toBe(replay.id);
    expect(expectStatus(200, await api.POST(`${prefix}/{id}/replays/{replay_id}/cancel`, { params: one })).status).toBe('cancelled');

    expect(expectStatus(200, await api.DELETE(`${prefix}/{id}`, { params }))).toMatchObject({ id: created.id, deleted: true });
  });
});

describe('the access request', () => {
  // A second process on the same database, with workers, sends the mail; started after the replays above.
  beforeAll(() => startTestService({ SMTP_URL: smtp.url }, { databaseUrl: svc.databaseUrl }));

  it('POST /partner/access-requests, then /confirm with the link of its mail', async () => {
    const email = `ada-${Date.now()}@partner.example`;
    const asked = expectStatus(
      202,
      await anonymous.POST('/partner/access-requests', {
        body: { company: 'Courier Ada', contact_name: 'Ada Lovelace', contact_email: email, use_case: 'Same-day deliveries.' },
      }),
    );
    expect(asked.status).toEqual(expect.any(String));
    const mail = await waitFor('the confirmation mail', () => smtp.received.find((m) => m.to.includes(email)));
    const token = /\/access\/confirm\/([\w-]+)/.exec(mail.raw.replace(/=\r?\n/g, ''))![1]!;
    const confirmed = expectStatus(200, await anonymous.POST('/partner/access-requests/confirm', { body: { token } }));
    expect(confirmed.message).toEqual(expect.any(String));
  });
});

describe('the document', () => {
  it('has no operation the tests above did not call through the client', async () => {
    const doc = expectStatus(200, await anonymous.GET('/partner/openapi.json')) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(doc.paths).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((m) => ['get', 'put', 'post', 'patch', 'delete'].includes(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((op) => !called.has(op)).sort()).toEqual([]);
  });
});
