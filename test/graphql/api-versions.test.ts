import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIRST_VERSION, LATEST_VERSION, VERSIONS } from '@/server/versions/registry';
import { createTestOperator, gql, type TestOperator } from '../support/operator-api';
import { clientFor, expectStatus, type CreateSubscription } from '../support/partner-api';
import { createTestPartner, startTestService, type TestPartner, type TestService } from '../support/service';

// The operator side of versions (issue 25): each environment's pin and each subscription's version on a
// partner, who still speaks an older version, and an admin's upgrade and rollback, audited as theirs.

let svc: TestService;
let admin: TestOperator;
let support: TestOperator;

beforeAll(async () => {
  svc = await startTestService({ WORKERS: 'off', CREDENTIAL_CACHE_TTL_MS: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  [admin, support] = await Promise.all([createTestOperator(svc, 'admin'), createTestOperator(svc, 'support')]);
});

const PINS = `query ($id: ID!) {
  partner(id: $id) {
    apiVersions { partnerId environment version firstRequestPins previousVersion pinnedAt changedAt rollbackUntil }
    subscriptionsOnOlderApiVersions
    webhookSubscriptions(first: 10) { nodes { id apiVersion } }
  }
}`;

/** A partner that existed before versions (what migration 0012 marks), with its sandbox pinned by a request. */
/** The version GET /partner/event-types answers in for `who` (its environment's pin). */
const servedVersion = async (who: TestPartner) =>
  (await clientFor(who).GET('/partner/event-types')).response.headers.get('x-service-version');

async function legacyPartner(): Promise<TestPartner> {
  const partner = await createTestPartner(svc);
  await svc.rt.db.execute(sql`update partners set first_pin_version = ${FIRST_VERSION} where id = ${partner.partnerId}`);
  expect(await servedVersion(partner)).toBe(FIRST_VERSION);
  return partner;
}

describe('a partner', () => {
  it("shows each environment's pin (or what its first request will pin) and each subscription's version", async () => {
    const partner = await legacyPartner();
    const hook = expectStatus(201, await clientFor(partner).POST('/partner/webhooks', { body: { url: 'https://localhost:4443/a' } }));
    expect(hook.api_version).toBe(FIRST_VERSION);
    const reply = await gql(admin, PINS, { id: partner.partnerId });
    expect(reply.errors).toBeUndefined();
    const [sandbox, production] = reply.data.partner.apiVersions;
    expect(sandbox).toMatchObject({
      environment: 'sandbox',
      version: FIRST_VERSION,
      firstRequestPins: FIRST_VERSION,
      previousVersion: null,
    });
    expect(production).toMatchObject({ environment: 'production', version: null, firstRequestPins: FIRST_VERSION, pinnedAt: null });
    expect(reply.data.partner.webhookSubscriptions.nodes).toEqual([{ id: hook.id, apiVersion: FIRST_VERSION }]);
    expect(reply.data.partner.subscriptionsOnOlderApiVersions).toBe(1);
  });

  it('lists the partners on older versions, not those on the latest alone', async () => {
    const old = await legacyPartner();
    const current = await createTestPartner(svc);
    expectStatus(200, await clientFor(current).GET('/partner/event-types'));
    const onlyOldSubscription = await createTestPartner(svc);
    // The first version as the document's enum types it (the registry's constant is a plain string).
    const api_version = FIRST_VERSION as NonNullable<CreateSubscription['api_version']>;
    const body = { url: 'https://localhost:4443/b', api_version };
    expectStatus(201, await clientFor(onlyOldSubscription).POST('/partner/webhooks', { body }));
    const reply = await gql(admin, `{ partners(olderApiVersion: true, first: 100) { nodes { id } } }`);
    const ids = reply.data.partners.nodes.map((p: { id: string }) => p.id);
    expect(ids).toContain(old.partnerId);
    expect(ids).toContain(onlyOldSubscription.partnerId);
    expect(ids).not.toContain(current.partnerId);
    const versions = await gql(support, `{ apiVersions { id latest changes { name title migration } } }`);
    expect(versions.data.apiVersions.map((v: { id: string }) => v.id)).toEqual([...VERSIONS].reverse());
  });
});

describe('upgradeApiVersion and rollbackApiVersion', () => {
  it("move an environment's pin as the partner's own calls would, audited as the admin's", async () => {
    const partner = await legacyPartner();
    const up = await gql(
      admin,
      `mutation ($p: ID!) { upgradeApiVersion(partnerId: $p, environment: sandbox) { environment version previousVersion rollbackUntil } }`,
      { p: partner.partnerId },
    );
    expect(up.errors).toBeUndefined();
    expect(up.data.upgradeApiVersion).toMatchObject({ environment: 'sandbox', version: LATEST_VERSION, previousVersion: FIRST_VERSION });
    expect(await servedVersion(partner)).toBe(LATEST_VERSION);

    const back = await gql(
      admin,
      `mutation ($p: ID!) { rollbackApiVersion(partnerId: $p, environment: sandbox) { version rollbackUntil } }`,
      {
        p: partner.partnerId,
      },
    );
    expect(back.data.rollbackApiVersion).toEqual({ version: FIRST_VERSION, rollbackUntil: null });
    expect(await servedVersion(partner)).toBe(FIRST_VERSION);

    const audit = await svc.rt.sql<{ actor: string; action: string; after: unknown }[]>`
      select actor, action, after from audit_log where target_id = ${partner.partnerId} and action like 'api_version.%' order by id`;
    expect(audit).toEqual([
      { actor: `operator:${admin.id}`, action: 'api_version.upgrade', after: { environment: 'sandbox', version: LATEST_VERSION } },
      { actor: `operator:${admin.id}`, action: 'api_version.rollback', after: { environment: 'sandbox', version: FIRST_VERSION } },
    ]);
  });

  it('refuse support, an unknown partner, and a version that is not newer', async () => {
    const partner = await legacyPartner();
    const bySupport = await gql(support, `mutation ($p: ID!) { upgradeApiVersion(partnerId: $p, environment: sandbox) { version } }`, {
      p: partner.partnerId,
    });
    expect(bySupport.errors?.[0]?.extensions?.code).toBe('forbidden');
    const unknown = await gql(
      admin,
      `mutation { upgradeApiVersion(partnerId: "01J0000000000000000000000A", environment: sandbox) { version } }`,
    );
    expect(unknown.errors?.[0]?.extensions?.code).toBe('resource_missing');
    const older = await gql(
      admin,
      `mutation ($p: ID!, $v: String) { upgradeApiVersion(partnerId: $p, environment: sandbox, version: $v) { version } }`,
      {
        p: partner.partnerId,
        v: FIRST_VERSION,
      },
    );
    expect(older.errors?.[0]?.extensions?.code).toBe('api_version_not_newer');
    const made = await gql(
      admin,
      `mutation ($p: ID!) { upgradeApiVersion(partnerId: $p, environment: sandbox, version: "2099-01-01") { version } }`,
      {
        p: partner.partnerId,
      },
    );
    expect(made.errors?.[0]?.extensions).toMatchObject({ code: 'parameter_invalid', param: 'version' });
  });
});
