import { Validator } from '@seriousme/openapi-schema-validator';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliContext } from '@/server/cli/operator-context';
import { issueCredential } from '@/server/credentials/issue';
import { FIRST_VERSION, LATEST_VERSION, VERSIONS } from '@/server/versions/registry';
import type { components, paths } from '@partner-delivery/client';
import type { EventEnvelope } from '@/db/schema';
import { call, clientFor, expectStatus, newOrder, type Caller } from '../support/partner-api';
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
// The first version as the document's version enum types it (the registry's constants are plain strings).
const FIRST = FIRST_VERSION as NonNullable<paths['/partner/webhooks']['post']['requestBody']['content']['application/json']['api_version']>;
type Event = components['schemas']['Event'];
/** The version that answered (X-Service-Version of the answer). */
const servedIn = (answer: { response: Response }) => answer.response.headers.get('x-service-version');
const eventTypesIn = (who: TestPartner, version?: string) => clientFor(who, { version }).GET('/partner/event-types');
const pinOf = async (who: TestPartner) => expectStatus(200, await clientFor(who).GET('/partner/api-version'));
const upgrade = (who: TestPartner, version?: string) =>
  clientFor(who).POST('/partner/api-version/upgrade', { body: version === undefined ? {} : { version: version as typeof FIRST } });
const rollback = (who: TestPartner) => clientFor(who).POST('/partner/api-version/rollback');

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
    const res = expectStatus(200, await clientFor(partner).GET('/partner/versions'));
    expect(res.data.map((v) => v.id)).toEqual([...VERSIONS].reverse());
    const [latest, first] = [res.data[0]!, res.data.at(-1)];
    expect(latest).toMatchObject({ object: 'api_version', id: LATEST_VERSION, latest: true });
    expect(latest.changes.map((c) => c.name)).toEqual(['event-api-version', 'event-previous-attributes']);
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
    expect(servedIn(await eventTypesIn(partner))).toBe(LATEST_VERSION);
    const notFound = await clientFor(partner).GET('/partner/orders/{id}', { params: { path: { id: '01J0000000000000000000000A' } } });
    expect([notFound.response.status, servedIn(notFound)]).toEqual([404, LATEST_VERSION]);
    // Raw below: an invalid body, no credentials, a path that is not in the document.
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
    const pin = await pinOf(partner);
    expect(pin).toMatchObject({
      object: 'api_version_pin',
      livemode: false,
      version: LATEST_VERSION,
      previous_version: null,
      rollback_until: null,
    });
    expect(Math.abs(pin.pinned_at - Date.now() / 1000)).toBeLessThan(60);

    // A sandbox pinned before the latest version existed: production starts where UAT was done.
    const tested = await createTestPartner(svc);
    await svc.rt.db.execute(sql`insert into api_version_pins (partner_id, environment, version, pinned_at)
      values (${tested.partnerId}, 'sandbox', ${FIRST_VERSION}, now() - interval '30 days')`);
    const production = await productionOf(tested);
    expect(await pinOf(production)).toMatchObject({ livemode: true, version: FIRST_VERSION });
  });

  it('pin the environments of a partner that existed before versions to the first, each apart: an upgrade of the sandbox leaves production', async () => {
    const sandbox = await legacyPartner();
    const production = await productionOf(sandbox);
    expect((await pinOf(sandbox)).version).toBe(FIRST_VERSION);
    expect((await pinOf(production)).version).toBe(FIRST_VERSION);

    const upgraded = expectStatus(200, await upgrade(sandbox));
    expect(upgraded).toMatchObject({ version: LATEST_VERSION, previous_version: FIRST_VERSION });
    expect(servedIn(await eventTypesIn(sandbox))).toBe(LATEST_VERSION);
    expect(servedIn(await eventTypesIn(production))).toBe(FIRST_VERSION);
  });
});

describe('the same order in both versions, side by side', () => {
  let partner: TestPartner;
  let order: { id: string };
  beforeAll(async () => {
    partner = await createTestPartner(svc);
    order = await newOrder(partner, { metadata: { cart: '42', '10': 'x', é: 'y' } });
    for (const status of ['courier_assigned', 'arrived_at_pickup', 'picked_up'] as const) {
      expectStatus(
        200,
        await clientFor(partner).POST('/partner/orders/{id}/simulate', { params: { path: { id: order.id } }, body: { status } }),
      );
    }
  });

  it('the first version answers the events exactly as they were stored, as before versions existed', async () => {
    const first = clientFor(partner, { version: FIRST_VERSION });
    const old = await first.GET('/partner/events', { params: { query: { order_id: order.id } } });
    expect(servedIn(old)).toBe(FIRST_VERSION);
    const stored = await storedEnvelopes(order.id);
    // The first version's envelopes, which the client's (latest) types do not describe.
    const events = expectStatus(200, old).data as unknown as EventEnvelope[];
    expect(events).toEqual(stored);
    expect(events[0]!.data.object.status_history).toHaveLength(4);
    for (const event of events) expect(Object.keys(event).sort()).toEqual(['created', 'data', 'id', 'livemode', 'object', 'type']);
    const one = await first.GET('/partner/events/{id}', { params: { path: { id: stored[0].id } } });
    expect(expectStatus(200, one)).toEqual(stored[0]);
  });

  it('the latest carries previous_attributes instead of the history, and names its version', async () => {
    const latest = await clientFor(partner).GET('/partner/events', { params: { query: { order_id: order.id } } });
    expect(servedIn(latest)).toBe(LATEST_VERSION);
    const events = expectStatus(200, latest).data;
    expect(events).toHaveLength(4);
    const [pickedUp, arrived, assigned, created] = events as [Event, Event, Event, Event];
    const stored = await storedEnvelopes(order.id);
    expect(events.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    for (const event of events) {
      expect(event.api_version).toBe(LATEST_VERSION);
      expect(event.data.object).not.toHaveProperty('status_history');
    }
    const { status_history: _, ...orderNow } = stored[0].data.object;
    expect(pickedUp.data.object).toEqual(orderNow);
    // `updated` is there when the move changed it: moves within one second leave it as it was.
    const updatedIf = (before: Event, after: Event) =>
      before.data.object.updated === after.data.object.updated ? {} : { updated: before.data.object.updated };
    expect(pickedUp.data.previous_attributes).toEqual({ status: 'arrived_at_pickup', ...updatedIf(arrived, pickedUp) });
    expect(assigned.data.previous_attributes).toEqual({ status: 'created', courier: null, ...updatedIf(created, assigned) });
    expect(created.data).not.toHaveProperty('previous_attributes');
    expect(Buffer.byteLength(JSON.stringify(pickedUp))).toBeLessThan(Buffer.byteLength(JSON.stringify(stored[0])));
  });

  it('orders themselves are the same in both versions', async () => {
    const read = (version?: string) => clientFor(partner, { version }).GET('/partner/orders/{id}', { params: { path: { id: order.id } } });
    const [a, b] = await Promise.all([read(), read(FIRST_VERSION)]);
    expect(expectStatus(200, a)).toEqual(expectStatus(200, b));
    expect(a.data!.status_history).toHaveLength(4);
  });

  it('the event catalog shows its examples in the version asked for', async () => {
    const [latest, first] = await Promise.all([eventTypesIn(partner), eventTypesIn(partner, FIRST_VERSION)]);
    // Read loosely: the first version's examples are not the shape of the client's (latest) types.
    const pick = (r: typeof latest, type: string) =>
      (expectStatus(200, r).data as unknown as { type: string; example: EventEnvelope }[]).find((t) => t.type === type)!.example;
    expect(pick(latest, 'order.picked_up').data).toMatchObject({ previous_attributes: { status: 'arrived_at_pickup' } });
    expect(pick(first, 'order.picked_up').data.object.status_history).toHaveLength(4);
    expect(pick(first, 'order.picked_up')).not.toHaveProperty('api_version');
  });
});

describe('upgrade and rollback', () => {
  it('upgrade, roll back within 72 h, then no second rollback; an upgrade to an older or the same version is refused; each audited', async () => {
    const partner = await legacyPartner();
    expect(servedIn(await eventTypesIn(partner))).toBe(FIRST_VERSION);
    const same = await upgrade(partner, FIRST_VERSION);
    expect([same.response.status, same.error?.error.code]).toEqual([409, 'api_version_not_newer']);
    const none = await rollback(partner);
    expect([none.response.status, none.error?.error.code]).toEqual([409, 'api_version_rollback_unavailable']);

    const up = expectStatus(200, await upgrade(partner, LATEST_VERSION));
    expect(up).toMatchObject({ version: LATEST_VERSION, previous_version: FIRST_VERSION });
    expect(up.rollback_until! - up.changed_at!).toBe(72 * 3600);
    expect(servedIn(await eventTypesIn(partner))).toBe(LATEST_VERSION);

    const back = expectStatus(200, await rollback(partner));
    expect(back).toMatchObject({ version: FIRST_VERSION, previous_version: null, rollback_until: null });
    expect(servedIn(await eventTypesIn(partner))).toBe(FIRST_VERSION);
    const again = await rollback(partner);
    expect([again.response.status, again.error?.error.code]).toEqual([409, 'api_version_rollback_unavailable']);

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
    expectStatus(200, await upgrade(partner));
    await svc.rt.db.execute(
      sql`update api_version_pins set changed_at = now() - interval '72 hours 1 minute' where partner_id = ${partner.partnerId}`,
    );
    const late = await rollback(partner);
    expect([late.response.status, late.error?.error.code]).toEqual([409, 'api_version_rollback_expired']);
    // A detail of this error the document's envelope does not list.
    expect((late.error?.error as { rollback_until?: number }).rollback_until).toBeLessThan(Date.now() / 1000);
    expect(await pinOf(partner)).toMatchObject({
      version: LATEST_VERSION,
      rollback_until: expect.any(Number),
    });
  });

  it('an idempotent replay is the first answer again, in the version that rendered it', async () => {
    const partner = await createTestPartner(svc);
    const hook = expectStatus(201, await clientFor(partner).POST('/partner/webhooks', { body: { url: 'https://localhost:4443/x' } }));
    // Raw: the replay is compared byte for byte.
    const first = await call('POST', `/partner/webhooks/${hook.id}/test`, {
      ...as(partner, FIRST_VERSION),
      headers: { ...as(partner, FIRST_VERSION).headers, 'idempotency-key': 'k1' },
    });
    const again = await call('POST', `/partner/webhooks/${hook.id}/test`, {
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
    const create = async (url: string, opts: { version?: string; api_version?: typeof FIRST } = {}) =>
      expectStatus(
        201,
        await clientFor(partner, { version: opts.version }).POST('/partner/webhooks', { body: { url, api_version: opts.api_version } }),
      );
    expect((await create('https://localhost:4443/a')).api_version).toBe(LATEST_VERSION);
    expect((await create('https://localhost:4443/b', { version: FIRST_VERSION })).api_version).toBe(FIRST_VERSION);
    const named = await create('https://localhost:4443/c', { api_version: FIRST });
    expect(named.api_version).toBe(FIRST_VERSION);
    const patched = await clientFor(partner).PATCH('/partner/webhooks/{id}', {
      params: { path: { id: named.id } },
      body: { api_version: LATEST_VERSION as typeof FIRST },
    });
    expect(expectStatus(200, patched).api_version).toBe(LATEST_VERSION);
    // Raw: a version the document's enum does not allow.
    const bad = await call('PATCH', `/partner/webhooks/${named.id}`, partner, { api_version: '2001-01-01' });
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
    expectStatus(200, await eventTypesIn(partner, FIRST_VERSION));
    expectStatus(200, await eventTypesIn(partner));
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
