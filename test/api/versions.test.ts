import { Validator } from '@seriousme/openapi-schema-validator';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { issueCredential } from '@/server/credentials/issue';
import { FIRST_VERSION, LATEST_VERSION, VERSIONS } from '@/server/versions/registry';
import { call, newOrder, type Caller } from '../support/partner-api';
import { findSamples, parsePrometheus, scrape } from '../support/prometheus';
import { approveGoLive, createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// Versions (issue 25) through the real server: the changelog, pins per environment, the override header, the
// first version's shapes kept exactly beside the latest's, upgrades and rollbacks, and a document per version.

let svc: TestService;

beforeAll(async () => {
  // A pin changed by an upgrade reaches the next request at once (the cache's TTL is the bound otherwise).
  svc = await startTestService({ CREDENTIAL_CACHE_TTL_MS: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
});

const as = (who: Caller, version: string): Caller => ({ ...who, headers: { ...who.headers, 'x-service-version': version } });

/** A partner that existed before versions: the migration marked it, so its environments pin the first version. */
async function legacyPartner(): Promise<TestPartner> {
  const partner = await createTestPartner(svc);
  await svc.rt.db.execute(sql`update partners set first_pin_version = ${FIRST_VERSION} where id = ${partner.partnerId}`);
  return partner;
}

async function storedEnvelopes(orderId: string) {
  const rows = await svc.rt.db.execute<{ id: string; text: string }>(
    sql`select id, envelope::text as text from events where object_id = ${orderId} order by id desc`,
  );
  return rows.map((r) => JSON.parse(r.text));
}

describe('GET /partner/versions', () => {
  it('lists every version, newest first, with its changes and migration notes', async () => {
    const partner = await createTestPartner(svc);
    const res = await call('GET', '/partner/versions', partner);
    expect(res.status).toBe(200);
    expect(res.body.data.map((v: { id: string }) => v.id)).toEqual([...VERSIONS].reverse());
    const [latest, first] = [res.body.data[0], res.body.data.at(-1)];
    expect(latest).toMatchObject({ object: 'api_version', id: LATEST_VERSION, latest: true });
    expect(latest.changes.map((c: { name: string }) => c.name)).toEqual(['event-api-version', 'event-previous-attributes']);
    for (const change of latest.changes) {
      expect(change.migration.length).toBeGreaterThan(20);
      expect(change.examples.length).toBeGreaterThan(0);
    }
    expect(first).toMatchObject({ id: FIRST_VERSION, latest: false, changes: [] });
  });
});

describe('the version of a request', () => {
  it('is named on every answer, errors included', async () => {
    const partner = await createTestPartner(svc);
    const ok = await call('GET', '/partner/event-types', partner);
    expect(ok.headers.get('x-service-version')).toBe(LATEST_VERSION);
    const notFound = await call('GET', '/partner/orders/01J0000000000000000000000A', partner);
    expect([notFound.status, notFound.headers.get('x-service-version')]).toEqual([404, LATEST_VERSION]);
    const invalid = await call('POST', '/partner/quotes', as(partner, FIRST_VERSION), { pickup: { lat: 'x' } });
    expect([invalid.status, invalid.headers.get('x-service-version')]).toEqual([400, FIRST_VERSION]);
    const unauthenticated = await call('GET', '/partner/event-types', {
      baseUrl: svc.url,
      headers: { 'x-service-version': FIRST_VERSION },
    });
    expect([unauthenticated.status, unauthenticated.headers.get('x-service-version')]).toEqual([401, FIRST_VERSION]);
    const noRoute = await call('GET', '/partner/no-such-thing', partner);
    expect([noRoute.status, noRoute.headers.get('x-service-version')]).toEqual([404, LATEST_VERSION]);
    const document = await fetch(`${svc.url}/partner/openapi.json`);
    expect(document.headers.get('x-service-version')).toBe(LATEST_VERSION);
  });

  it.each([
    ['2020-01-01', 'api_version_unknown'],
    ['latest', 'api_version_invalid'],
    ['2026-11-26; drop table', 'api_version_invalid'],
    ['', 'api_version_invalid'],
  ])('X-Service-Version %j is a 400 (%s) naming the known versions, in the envelope of every error', async (value, code) => {
    const partner = await createTestPartner(svc);
    const res = await call('GET', '/partner/event-types', as(partner, value));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code, param: 'X-Service-Version', known_versions: VERSIONS });
    expect(res.body.error.message).toContain(VERSIONS.join(', '));
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    // Rendered in the environment's pin: the header could not be.
    expect(res.headers.get('x-service-version')).toBe(LATEST_VERSION);
  });
});

describe('pins', () => {
  it("pin a new partner's environment to the latest version at its first request, and production to the sandbox's", async () => {
    const partner = await createTestPartner(svc);
    const pin = await call('GET', '/partner/api-version', partner);
    expect(pin.body).toMatchObject({
      object: 'api_version_pin',
      livemode: false,
      version: LATEST_VERSION,
      previous_version: null,
      rollback_until: null,
    });
    expect(Math.abs(pin.body.pinned_at - Date.now() / 1000)).toBeLessThan(60);

    // A sandbox pinned before the latest version existed: production starts where UAT was done.
    const tested = await createTestPartner(svc);
    await svc.rt.db.execute(sql`insert into api_version_pins (partner_id, environment, version, pinned_at)
      values (${tested.partnerId}, 'sandbox', ${FIRST_VERSION}, now() - interval '30 days')`);
    const production = await productionOf(tested);
    expect((await call('GET', '/partner/api-version', production)).body).toMatchObject({ livemode: true, version: FIRST_VERSION });
  });

  it('pin the environments of a partner that existed before versions to the first, each apart: an upgrade of the sandbox leaves production', async () => {
    const sandbox = await legacyPartner();
    const production = await productionOf(sandbox);
    expect((await call('GET', '/partner/api-version', sandbox)).body.version).toBe(FIRST_VERSION);
    expect((await call('GET', '/partner/api-version', production)).body.version).toBe(FIRST_VERSION);

    const upgraded = await call('POST', '/partner/api-version/upgrade', sandbox, {});
    expect(upgraded.status, upgraded.text).toBe(200);
    expect(upgraded.body).toMatchObject({ version: LATEST_VERSION, previous_version: FIRST_VERSION });
    expect((await call('GET', '/partner/event-types', sandbox)).headers.get('x-service-version')).toBe(LATEST_VERSION);
    expect((await call('GET', '/partner/event-types', production)).headers.get('x-service-version')).toBe(FIRST_VERSION);
  });
});

describe('the same order in both versions, side by side', () => {
  let partner: TestPartner;
  let order: { id: string };
  beforeAll(async () => {
    partner = await createTestPartner(svc);
    order = await newOrder(partner, { metadata: { cart: '42', '10': 'x', é: 'y' } });
    for (const status of ['courier_assigned', 'arrived_at_pickup', 'picked_up']) {
      expect((await call('POST', `/partner/orders/${order.id}/simulate`, partner, { status })).status).toBe(200);
    }
  });

  it('the first version answers the events exactly as they were stored, as before versions existed', async () => {
    const old = await call('GET', `/partner/events?order_id=${order.id}`, as(partner, FIRST_VERSION));
    expect(old.headers.get('x-service-version')).toBe(FIRST_VERSION);
    const stored = await storedEnvelopes(order.id);
    expect(old.body.data).toEqual(stored);
    expect(old.body.data[0].data.object.status_history).toHaveLength(4);
    for (const event of old.body.data) expect(Object.keys(event).sort()).toEqual(['created', 'data', 'id', 'livemode', 'object', 'type']);
    const one = await call('GET', `/partner/events/${stored[0].id}`, as(partner, FIRST_VERSION));
    expect(one.body).toEqual(stored[0]);
  });

  it('the latest carries previous_attributes instead of the history, and names its version', async () => {
    const latest = await call('GET', `/partner/events?order_id=${order.id}`, partner);
    expect(latest.headers.get('x-service-version')).toBe(LATEST_VERSION);
    const [pickedUp, arrived, assigned, created] = latest.body.data;
    const stored = await storedEnvelopes(order.id);
    expect(latest.body.data.map((e: { id: string }) => e.id)).toEqual(stored.map((e) => e.id));
    for (const event of latest.body.data) {
      expect(event.api_version).toBe(LATEST_VERSION);
      expect(event.data.object).not.toHaveProperty('status_history');
    }
    const { status_history: _, ...orderNow } = stored[0].data.object;
    expect(pickedUp.data.object).toEqual(orderNow);
    // `updated` is there when the move changed it: moves within one second leave it as it was.
    const updatedIf = (before: { data: { object: { updated: number } } }, after: typeof before) =>
      before.data.object.updated === after.data.object.updated ? {} : { updated: before.data.object.updated };
    expect(pickedUp.data.previous_attributes).toEqual({ status: 'arrived_at_pickup', ...updatedIf(arrived, pickedUp) });
    expect(assigned.data.previous_attributes).toEqual({ status: 'created', courier: null, ...updatedIf(created, assigned) });
    expect(created.data).not.toHaveProperty('previous_attributes');
    expect(Buffer.byteLength(JSON.stringify(pickedUp))).toBeLessThan(Buffer.byteLength(JSON.stringify(stored[0])));
  });

  it('orders themselves are the same in both versions', async () => {
    const [a, b] = await Promise.all([
      call('GET', `/partner/orders/${order.id}`, partner),
      call('GET', `/partner/orders/${order.id}`, as(partner, FIRST_VERSION)),
    ]);
    expect(a.body).toEqual(b.body);
    expect(a.body.status_history).toHaveLength(4);
  });

  it('the event catalog shows its examples in the version asked for', async () => {
    const [latest, first] = await Promise.all([
      call('GET', '/partner/event-types', partner),
      call('GET', '/partner/event-types', as(partner, FIRST_VERSION)),
    ]);
    const pick = (r: typeof latest, type: string) => r.body.data.find((t: { type: string }) => t.type === type).example;
    expect(pick(latest, 'order.picked_up').data.previous_attributes).toMatchObject({ status: 'arrived_at_pickup' });
    expect(pick(first, 'order.picked_up').data.object.status_history).toHaveLength(4);
    expect(pick(first, 'order.picked_up')).not.toHaveProperty('api_version');
  });
});

describe('upgrade and rollback', () => {
  it('upgrade, roll back within 72 h, then no second rollback; an upgrade to an older or the same version is refused; each audited', async () => {
    const partner = await legacyPartner();
    expect((await call('GET', '/partner/event-types', partner)).headers.get('x-service-version')).toBe(FIRST_VERSION);
    const same = await call('POST', '/partner/api-version/upgrade', partner, { version: FIRST_VERSION });
    expect([same.status, same.body.error.code]).toEqual([409, 'api_version_not_newer']);
    const none = await call('POST', '/partner/api-version/rollback', partner);
    expect([none.status, none.body.error.code]).toEqual([409, 'api_version_rollback_unavailable']);

    const up = await call('POST', '/partner/api-version/upgrade', partner, { version: LATEST_VERSION });
    expect(up.body).toMatchObject({ version: LATEST_VERSION, previous_version: FIRST_VERSION });
    expect(up.body.rollback_until - up.body.changed_at).toBe(72 * 3600);
    expect((await call('GET', '/partner/event-types', partner)).headers.get('x-service-version')).toBe(LATEST_VERSION);

    const back = await call('POST', '/partner/api-version/rollback', partner);
    expect(back.status, back.text).toBe(200);
    expect(back.body).toMatchObject({ version: FIRST_VERSION, previous_version: null, rollback_until: null });
    expect((await call('GET', '/partner/event-types', partner)).headers.get('x-service-version')).toBe(FIRST_VERSION);
    const again = await call('POST', '/partner/api-version/rollback', partner);
    expect([again.status, again.body.error.code]).toEqual([409, 'api_version_rollback_unavailable']);

    const audit = await svc.rt.db.execute<{ action: string; actor: string; before: unknown; after: unknown }>(
      sql`select action, actor, before, after from audit_log where target_id = ${partner.partnerId} and action like 'api_version.%' order by id`,
    );
    expect(audit).toEqual([
      {
        action: 'api_version.upgrade',
        actor: `partner:${partner.partnerId}`,
        before: { environment: 'sandbox', version: FIRST_VERSION },
        after: { environment: 'sandbox', version: LATEST_VERSION },
      },
      {
        action: 'api_version.rollback',
        actor: `partner:${partner.partnerId}`,
        before: { environment: 'sandbox', version: LATEST_VERSION },
        after: { environment: 'sandbox', version: FIRST_VERSION },
      },
    ]);
  });

  it('refuses a rollback more than 72 h after the upgrade', async () => {
    const partner = await legacyPartner();
    expect((await call('POST', '/partner/api-version/upgrade', partner, {})).status).toBe(200);
    await svc.rt.db.execute(
      sql`update api_version_pins set changed_at = now() - interval '72 hours 1 minute' where partner_id = ${partner.partnerId}`,
    );
    const late = await call('POST', '/partner/api-version/rollback', partner);
    expect([late.status, late.body.error.code]).toEqual([409, 'api_version_rollback_expired']);
    expect(late.body.error.rollback_until).toBeLessThan(Date.now() / 1000);
    expect((await call('GET', '/partner/api-version', partner)).body).toMatchObject({
      version: LATEST_VERSION,
      rollback_until: expect.any(Number),
    });
  });

  it('an idempotent replay is the first answer again, in the version that rendered it', async () => {
    const partner = await createTestPartner(svc);
    const hook = await call('POST', '/partner/webhooks', partner, { url: 'https://localhost:4443/x' });
    const first = await call('POST', `/partner/webhooks/${hook.body.id}/test`, {
      ...as(partner, FIRST_VERSION),
      headers: { ...as(partner, FIRST_VERSION).headers, 'idempotency-key': 'k1' },
    });
    const again = await call('POST', `/partner/webhooks/${hook.body.id}/test`, {
      ...partner,
      headers: { ...partner.headers, 'idempotency-key': 'k1' },
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('x-service-version')).toBe(FIRST_VERSION);
    expect(again.text).toBe(first.text);
    expect(first.body).not.toHaveProperty('api_version');
  });
});

describe('webhook subscriptions', () => {
  it("take the creating request's version, or the one named; PATCH changes it; an unknown one is a 400", async () => {
    const partner = await createTestPartner(svc);
    const byPin = await call('POST', '/partner/webhooks', partner, { url: 'https://localhost:4443/a' });
    expect(byPin.body.api_version).toBe(LATEST_VERSION);
    const byHeader = await call('POST', '/partner/webhooks', as(partner, FIRST_VERSION), { url: 'https://localhost:4443/b' });
    expect(byHeader.body.api_version).toBe(FIRST_VERSION);
    const named = await call('POST', '/partner/webhooks', partner, { url: 'https://localhost:4443/c', api_version: FIRST_VERSION });
    expect(named.body.api_version).toBe(FIRST_VERSION);
    const patched = await call('PATCH', `/partner/webhooks/${named.body.id}`, partner, { api_version: LATEST_VERSION });
    expect(patched.body.api_version).toBe(LATEST_VERSION);
    const bad = await call('PATCH', `/partner/webhooks/${named.body.id}`, partner, { api_version: '2001-01-01' });
    expect([bad.status, bad.body.error.param]).toEqual([400, 'api_version']);
  });
});

describe('GET /partner/openapi.json?version=', () => {
  const validator = new Validator();
  type Doc = {
    info: { version: string };
    components: { schemas: Record<string, { properties: Record<string, { properties?: Record<string, unknown> }> }> };
  };

  it.each(VERSIONS.map((v) => [v]))('%s: a valid OpenAPI 3.1 document of that version', async (version) => {
    const res = await fetch(`${svc.url}/partner/openapi.json?version=${version}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-version')).toBe(version);
    const doc = (await res.json()) as Doc;
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(doc.info.version).toBe(version);
    const event = doc.components.schemas.Event!;
    const latest = version === LATEST_VERSION;
    expect(Object.keys(event.properties)).toContain('id');
    expect('api_version' in event.properties).toBe(latest);
    expect('previous_attributes' in event.properties.data!.properties!).toBe(latest);
  });

  it('is the latest by default; an unknown version is a 400', async () => {
    const byDefault = (await (await fetch(`${svc.url}/partner/openapi.json`)).json()) as Doc;
    expect(byDefault.info.version).toBe(LATEST_VERSION);
    const unknown = await fetch(`${svc.url}/partner/openapi.json?version=1999-01-01`);
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatchObject({ code: 'api_version_unknown', param: 'version' });
  });
});

describe('metrics', () => {
  it('count partner requests by the version that answered them, from the fixed set of known versions', async () => {
    const partner = await createTestPartner(svc);
    await call('GET', '/partner/event-types', as(partner, FIRST_VERSION));
    await call('GET', '/partner/event-types', partner);
    await call('GET', '/partner/event-types', as(partner, 'no-such-version'));
    const samples = parsePrometheus((await scrape(`${svc.url}/metrics`)).text);
    const route = { route: '/partner/event-types' };
    for (const version of VERSIONS) {
      expect(findSamples(samples, 'pdp_http_requests_total', { ...route, api_version: version }).length, version).toBeGreaterThan(0);
    }
    const labels = new Set(findSamples(samples, 'pdp_http_requests_total').map((s) => s.labels.api_version));
    expect([...labels].every((l) => l === 'none' || VERSIONS.includes(l!))).toBe(true);
    expect(findSamples(samples, 'pdp_api_versions_in_use', { kind: 'environment', api_version: LATEST_VERSION })[0]!.value).toBeGreaterThan(
      0,
    );
  });
});

async function productionOf(partner: TestPartner): Promise<TestPartner> {
  const ctx = cliContext(svc.rt, 'test');
  await approveGoLive(ctx, partner.partnerId);
  const cred = await issueCredential({ ctx, input: { partnerId: partner.partnerId, environment: 'production' } });
  return {
    ...partner,
    environment: 'production',
    clientId: cred.client_id,
    apiKey: cred.api_key,
    headers: { 'x-client-id': cred.client_id, 'x-api-key': cred.api_key, 'content-type': 'application/json' },
  };
}
