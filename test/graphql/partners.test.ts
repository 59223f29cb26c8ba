import { createHash } from 'node:crypto';
import { execute, parse } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { addAllowlistEntry } from '@/server/allowlist/edit';
import { cliContext } from '@/server/cli/operator-context';
import { actingFor, contextFor, type Ctx, type OperatorActor } from '@/server/context';
import type { GraphQLContext } from '@/server/graphql/context';
import { AggregateSlots } from '@/server/graphql/aggregate-slots';
import { issueCredential } from '@/server/credentials/issue';
import { operatorSchema } from '@/server/graphql/schema';
import { newId } from '@/server/ids';
import { createPartner } from '@/server/partners/create';
import { decideGoLive } from '@/server/partners/go-live';
import { setRateLimit } from '@/server/partners/set-rate-limit';
import { createWebhook } from '@/server/webhooks/create';
import { createTestOperator, gql, gqlData, type TestOperator } from '../support/operator-api';
import { clientFor, expectStatus } from '../support/partner-api';
import { NYC, startTestService, type TestService } from '../support/service';

// Webhook hosts resolve to a documentation-free public address; workers are off, so nothing is sent.
const PUBLIC_ADDRESS = '93.184.215.14';

let svc: TestService;
let admin: TestOperator;
let support: TestOperator;

beforeAll(async () => {
  svc = await startTestService(
    { WORKERS: 'off', RATE_LIMIT_PER_SECOND: '40', RATE_LIMIT_BURST: '90' },
    { resolver: async () => [PUBLIC_ADDRESS] },
  );
  [admin, support] = await Promise.all([createTestOperator(svc, 'admin'), createTestOperator(svc, 'support')]);
});

const cli = () => cliContext(svc.rt, 'test');

async function auditOf(targetId: string) {
  return svc.rt.sql<{ actor: string; action: string; before: unknown; after: unknown }[]>`
    select actor, action, before, after from audit_log where target_id = ${targetId} order by at, id`;
}

async function auditCount(): Promise<number> {
  const [row] = await svc.rt.sql<{ n: number }[]>`select count(*)::int as n from audit_log`;
  return row!.n;
}

function errorCode(reply: Awaited<ReturnType<typeof gql>>) {
  expect(reply.errors, JSON.stringify(reply.data)).toHaveLength(1);
  return reply.errors![0]!.extensions;
}

const PARTNER_DETAIL = `query ($id: ID!) {
  partner(id: $id) {
    id name createdAt
    goLive { partnerId status note }
    rateLimit { partnerId override perSecond burst }
    credentials(first: 10) { nodes { id partnerId clientId environment keyLast4 createdAt revokedAt } pageInfo { hasNextPage endCursor } }
    allowlist(first: 10) { nodes { id partnerId cidr label createdAt } }
    webhookSubscriptions(first: 10) {
      nodes {
        id partnerId url environment status disabledReason eventFilters description createdAt updatedAt failingSince
        successRate { attempts succeeded ratio since }
      }
    }
  }
}`;

/** Attempts of a subscription, written as the delivery engine writes them: `outcomes` true for a 2xx. */
async function recordAttempts(subscriptionId: string, partnerId: string, outcomes: boolean[], startedAt: Date) {
  const at = startedAt.toISOString();
  for (const ok of outcomes) {
    const [eventId, deliveryId] = [newId(), newId()];
    await svc.rt.sql`insert into events (id, partner_id, environment, type, object_id, envelope, created_at)
      values (${eventId}, ${partnerId}, 'sandbox', 'order.created', ${newId()}, '{}'::jsonb, ${at}::timestamptz)`;
    await svc.rt
      .sql`insert into webhook_deliveries (id, event_id, subscription_id, event_type, status, attempts, last_attempt_at, created_at, updated_at)
      values (${deliveryId}, ${eventId}, ${subscriptionId}, 'order.created', ${ok ? 'succeeded' : 'failed'}, 1, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz)`;
    await svc.rt.sql`insert into webhook_attempts (id, delivery_id, attempt, trigger, started_at, duration_ms, response_status, error_kind)
      values (${newId()}, ${deliveryId}, 1, 'scheduled', ${at}::timestamptz, 12, ${ok ? 200 : 500}, ${ok ? null : 'http_status'})`;
  }
}

describe('partners queries', () => {
  it('partner(id) shows what the verbs made: credentials without keys, allowlist, go-live, rate limit, webhooks with success rates', async () => {
    const ctx = cli();
    const partner = await createPartner({ ctx, input: { name: 'Detail Couriers' } });
    const sandbox = await issueCredential({ ctx, input: { partnerId: partner.id, environment: 'sandbox' } });
    await decideGoLive({ ctx, input: { partnerId: partner.id, decision: 'request' } });
    await decideGoLive({ ctx, input: { partnerId: partner.id, decision: 'approve', note: 'UAT passed, runbook checked' } });
    const live = await issueCredential({ ctx, input: { partnerId: partner.id, environment: 'production' } });
    await addAllowlistEntry({ ctx, input: { partnerId: partner.id, cidr: '203.0.113.9/24', label: 'egress' } });
    await setRateLimit({ ctx, input: { partnerId: partner.id, perSecond: 7 } });
    const hook = await createWebhook({
      ctx: actingFor(ctx, { partnerId: partner.id, environment: 'sandbox' }),
      input: { url: 'https://hooks.example.com/in', event_filters: ['order.created'], description: 'main' },
    });
    const now = new Date();
    await recordAttempts(hook.id, partner.id, [true, true, true, false], new Date(now.getTime() - 3600_000));
    // Outside the 24 h window: not counted.
    await recordAttempts(hook.id, partner.id, [false, false], new Date(now.getTime() - 30 * 3600_000));

    const data = await gqlData(support, PARTNER_DETAIL, { id: partner.id });
    const p = data.partner;
    expect(p).toMatchObject({
      id: partner.id,
      name: 'Detail Couriers',
      goLive: { partnerId: partner.id, status: 'approved', note: 'UAT passed, runbook checked' },
      rateLimit: { partnerId: partner.id, override: 7, perSecond: 7, burst: 14 },
    });
    expect(new Date(p.createdAt).getTime()).toBe(partner.createdAt.getTime());
    expect(p.credentials.nodes.map((c: { clientId: string }) => c.clientId)).toEqual([live.client_id, sandbox.client_id]);
    expect(p.credentials.nodes[0]).toMatchObject({
      partnerId: partner.id,
      environment: 'production',
      keyLast4: live.api_key.slice(-4),
      revokedAt: null,
    });
    expect(p.credentials.pageInfo.hasNextPage).toBe(false);
    expect(p.allowlist.nodes).toEqual([
      { id: expect.any(String), partnerId: partner.id, cidr: '203.0.113.0/24', label: 'egress', createdAt: expect.any(String) },
    ]);
    expect(p.webhookSubscriptions.nodes).toEqual([
      {
        id: hook.id,
        partnerId: partner.id,
        url: 'https://hooks.example.com/in',
        environment: 'sandbox',
        status: 'enabled',
        disabledReason: null,
        eventFilters: ['order.created'],
        description: 'main',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        failingSince: null,
        successRate: { attempts: 4, succeeded: 3, ratio: 0.75, since: expect.any(String) },
      },
    ]);
    const since = new Date(p.webhookSubscriptions.nodes[0].successRate.since).getTime();
    expect(Math.abs(since - (Date.now() - 24 * 3600_000))).toBeLessThan(60_000);

    // Neither key nor hash nor webhook secret appears anywhere in the answer.
    const text = JSON.stringify(data);
    for (const secret of [sandbox.api_key, live.api_key, createHash('sha256').update(live.api_key).digest('hex'), hook.secret]) {
      expect(text).not.toContain(secret);
    }
  });

  it('the platform default shows when a partner has no rate limit of its own; a partner without children has empty pages', async () => {
    const partner = await createPartner({ ctx: cli(), input: { name: 'Plain Partner' } });
    const { partner: p } = await gqlData(admin, PARTNER_DETAIL, { id: partner.id });
    expect(p.goLive).toEqual({ partnerId: partner.id, status: 'not_requested', note: null });
    expect(p.rateLimit).toEqual({ partnerId: partner.id, override: null, perSecond: 40, burst: 90 });
    expect([p.credentials.nodes, p.allowlist.nodes, p.webhookSubscriptions.nodes]).toEqual([[], [], []]);
  });

  it('partner(id) of an unknown id is resource_missing', async () => {
    const reply = await gql(support, '{ partner(id: "01JUNKNOWN0000000000000000") { id } }');
    expect(errorCode(reply)).toMatchObject({ code: 'resource_missing' });
  });

  it('partners(search) matches a name in any case and part, or an exact id; newest first, paginated; children per partner', async () => {
    const ctx = cli();
    const made = [];
    for (const name of ['Zebra Freight One', 'zebra freight two', 'ZEBRA FREIGHT THREE', 'Other 100%_Co']) {
      made.push(await createPartner({ ctx, input: { name } }));
    }
    const [one, two, three, other] = made as [(typeof made)[0], (typeof made)[0], (typeof made)[0], (typeof made)[0]];
    await addAllowlistEntry({ ctx, input: { partnerId: two.id, cidr: '198.51.100.1', label: 'two' } });
    await addAllowlistEntry({ ctx, input: { partnerId: three.id, cidr: '2001:db8::/32' } });
    await addAllowlistEntry({ ctx, input: { partnerId: three.id, cidr: '192.0.2.0/24' } });

    const query = `query ($search: String, $first: Int!, $after: String) {
      partners(search: $search, first: $first, after: $after) {
        nodes { id name allowlist(first: 5) { nodes { cidr } } }
        pageInfo { hasNextPage endCursor }
      }
    }`;
    const first = (await gqlData(support, query, { search: 'ebra FREIGHT', first: 2 })).partners;
    expect(first.nodes.map((n: { id: string }) => n.id)).toEqual([three.id, two.id]);
    expect(first.nodes.map((n: { allowlist: { nodes: unknown[] } }) => n.allowlist.nodes)).toEqual([
      [{ cidr: '192.0.2.0/24' }, { cidr: '2001:db8::/32' }],
      [{ cidr: '198.51.100.1/32' }],
    ]);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = (await gqlData(support, query, { search: 'ebra FREIGHT', first: 2, after: first.pageInfo.endCursor })).partners;
    expect(rest.nodes.map((n: { id: string }) => n.id)).toEqual([one.id]);
    expect(rest.pageInfo.hasNextPage).toBe(false);

    expect((await gqlData(admin, query, { search: one.id, first: 5 })).partners.nodes.map((n: { id: string }) => n.id)).toEqual([one.id]);
    // % and _ are letters in a search, not patterns.
    expect((await gqlData(admin, query, { search: '100%_', first: 5 })).partners.nodes.map((n: { id: string }) => n.id)).toEqual([
      other.id,
    ]);
    expect((await gqlData(admin, query, { search: '%', first: 5 })).partners.nodes.map((n: { id: string }) => n.id)).toEqual([other.id]);

    const all = (await gqlData(admin, query, { first: 100 })).partners.nodes.map((n: { id: string }) => n.id);
    expect(all).toEqual([...all].sort().reverse());
    expect(all.slice(0, 4)).toEqual([other.id, three.id, two.id, one.id]);

    expect(errorCode(await gql(admin, query, { first: 0 }))).toMatchObject({ code: 'parameter_invalid', param: 'first' });
    expect(errorCode(await gql(admin, query, { first: 5, after: 'not a cursor!' }))).toMatchObject({ param: 'after' });
  });

  it('a page of partners with their children and success rates costs the same few queries for 2 partners as for 6 (no N+1)', async () => {
    const ctx = cli();
    for (let i = 0; i < 6; i++) {
      const { id } = await createPartner({ ctx, input: { name: `Batch ${i}` } });
      await issueCredential({ ctx, input: { partnerId: id, environment: 'sandbox' } });
      await addAllowlistEntry({ ctx, input: { partnerId: id, cidr: `192.0.2.${i}` } });
      await createWebhook({
        ctx: actingFor(ctx, { partnerId: id, environment: 'sandbox' }),
        input: { url: `https://hooks.example.com/${i}` },
      });
    }
    const queriesFor = async (first: number) => {
      let selects = 0;
      const operator = contextFor(svc.rt, { kind: 'operator', operatorId: support.id, role: 'support' }, 'req_test');
      // Counts the statements the verbs start: every read begins with db.select(), or db.execute() for SQL written
      // out (the success rates, over the attempts rollup).
      const db = new Proxy(operator.db, {
        get(target, key, receiver) {
          const value: unknown = Reflect.get(target, key, receiver);
          if ((key !== 'select' && key !== 'execute') || typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            selects++;
            return value.apply(target, args);
          };
        },
      });
      const contextValue = {
        // Reads through ctx.read (the success rates) counted too: without a replica it is the same pool.
        ctx: { ...operator, db, read: db } as Ctx<OperatorActor>,
        session: {},
        loaders: new Map(),
        signal: new AbortController().signal,
        aggregates: new AggregateSlots(2),
      } as unknown as GraphQLContext;
      const result = await execute({
        schema: operatorSchema(),
        contextValue,
        document: parse(`{ partners(search: "Batch", first: ${first}) { nodes {
          credentials(first: 5) { nodes { clientId } } allowlist(first: 5) { nodes { cidr } }
          webhookSubscriptions(first: 5) { nodes { url successRate { attempts } } } } } }`),
      });
      expect(result.errors).toBeUndefined();
      const nodes = (result.data as { partners: { nodes: { webhookSubscriptions: { nodes: unknown[] } }[] } }).partners.nodes;
      expect(nodes.map((n) => n.webhookSubscriptions.nodes.length)).toEqual(Array(first).fill(1));
      return selects;
    };
    const few = await queriesFor(2);
    expect(await queriesFor(6)).toBe(few);
    // partners; credentials, allowlist and subscriptions (a ranked subquery and its outer select each); success rates
    // (the rollup's watermark, then the counts: server/history/attempt-minutes.ts readCounted).
    expect(few).toBe(9);
  });
});

describe('partner mutations (admin)', () => {
  it('createPartner makes a partner and audits it', async () => {
    const { createPartner: p } = await gqlData(
      admin,
      'mutation { createPartner(name: "  New Wheels ") { id name goLive { status } rateLimit { override } } }',
    );
    expect(p).toEqual({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      name: 'New Wheels',
      goLive: { status: 'not_requested' },
      rateLimit: { override: null },
    });
    expect(await auditOf(p.id)).toEqual([
      { actor: `operator:${admin.id}`, action: 'partner.create', before: null, after: { name: 'New Wheels' } },
    ]);
    expect(errorCode(await gql(admin, 'mutation { createPartner(name: "  ") { id } }'))).toMatchObject({
      code: 'parameter_out_of_range',
      param: 'name',
    });
  });

  it('issueCredential shows the key once; it authenticates on the partner API and is never readable again; revokeCredential ends it', async () => {
    const partner = await createPartner({ ctx: cli(), input: { name: 'Key Holder' } });
    const issue = `mutation ($p: ID!, $e: Environment!) { issueCredential(partnerId: $p, environment: $e) { partnerId clientId environment key } }`;
    const refused = await gql(admin, issue, { p: partner.id, e: 'production' });
    expect(errorCode(refused)).toMatchObject({ code: 'go_live_required' });

    const { issueCredential: cred } = await gqlData(admin, issue, { p: partner.id, e: 'sandbox' });
    expect(cred).toEqual({
      partnerId: partner.id,
      clientId: expect.stringMatching(/^ci_/),
      environment: 'sandbox',
      key: expect.stringMatching(/^sk_sandbox_/),
    });
    const holder = clientFor({ baseUrl: svc.url, clientId: cred.clientId, apiKey: cred.key });
    expectStatus(201, await holder.POST('/partner/quotes', { body: NYC }));
    const audit = await auditOf(cred.clientId);
    expect(audit).toEqual([
      {
        actor: `operator:${admin.id}`,
        action: 'credential.issue',
        before: null,
        after: { partner_id: partner.id, environment: 'sandbox', key_last4: cred.key.slice(-4) },
      },
    ]);

    const detail = JSON.stringify(await gqlData(admin, PARTNER_DETAIL, { id: partner.id }));
    const listed = JSON.stringify(
      await gqlData(admin, '{ partners(first: 100) { nodes { credentials(first: 100) { nodes { id clientId keyLast4 } } } } }'),
    );
    for (const text of [detail, listed]) {
      expect(text).toContain(cred.clientId);
      expect(text).not.toContain(cred.key);
      expect(text).not.toContain(createHash('sha256').update(cred.key).digest('hex'));
    }

    const revoke = `mutation ($c: String!) { revokeCredential(clientId: $c) { clientId revokedAt } }`;
    const { revokeCredential: revoked } = await gqlData(admin, revoke, { c: cred.clientId });
    expect(revoked.clientId).toBe(cred.clientId);
    expect(Math.abs(new Date(revoked.revokedAt).getTime() - Date.now())).toBeLessThan(60_000);
    expect((await auditOf(cred.clientId)).map((a) => `${a.actor} ${a.action}`)).toEqual([
      `operator:${admin.id} credential.issue`,
      `operator:${admin.id} credential.revoke`,
    ]);
    const { partner: after } = await gqlData(admin, PARTNER_DETAIL, { id: partner.id });
    expect(after.credentials.nodes[0].revokedAt).not.toBeNull();
    expect(errorCode(await gql(admin, revoke, { c: 'ci_nosuchclient' }))).toMatchObject({ code: 'resource_missing' });
  });

  it('addAllowlistEntry and removeAllowlistEntry edit the allowlist, audited; a bad CIDR names the param', async () => {
    const partner = await createPartner({ ctx: cli(), input: { name: 'Allowlisted' } });
    const add = `mutation ($p: ID!, $c: String!, $l: String) { addAllowlistEntry(partnerId: $p, cidr: $c, label: $l) { partnerId cidr label } }`;
    const remove = `mutation ($p: ID!, $c: String!) { removeAllowlistEntry(partnerId: $p, cidr: $c) }`;
    expect((await gqlData(admin, add, { p: partner.id, c: '203.0.113.77/24', l: 'proxy' })).addAllowlistEntry).toEqual({
      partnerId: partner.id,
      cidr: '203.0.113.0/24',
      label: 'proxy',
    });
    expect((await gqlData(admin, PARTNER_DETAIL, { id: partner.id })).partner.allowlist.nodes).toMatchObject([
      { cidr: '203.0.113.0/24', label: 'proxy' },
    ]);

    for (const cidr of ['203.0.113.0/33', 'not-an-ip', '10.0.0.1/8/1']) {
      expect(errorCode(await gql(admin, add, { p: partner.id, c: cidr }))).toMatchObject({ code: 'parameter_invalid', param: 'cidr' });
    }
    expect(errorCode(await gql(admin, add, { p: '01JUNKNOWN0000000000000000', c: '192.0.2.1' }))).toMatchObject({
      code: 'resource_missing',
    });

    expect((await gqlData(admin, remove, { p: partner.id, c: '203.0.113.0/24' })).removeAllowlistEntry).toBe(true);
    expect(errorCode(await gql(admin, remove, { p: partner.id, c: '203.0.113.0/24' }))).toMatchObject({ code: 'resource_missing' });
    expect((await gqlData(admin, PARTNER_DETAIL, { id: partner.id })).partner.allowlist.nodes).toEqual([]);
    expect(await auditOf(partner.id)).toEqual([
      expect.objectContaining({ action: 'partner.create' }),
      { actor: `operator:${admin.id}`, action: 'allowlist.add', before: null, after: { cidr: '203.0.113.0/24', label: 'proxy' } },
      { actor: `operator:${admin.id}`, action: 'allowlist.remove', before: { cidr: '203.0.113.0/24', label: 'proxy' }, after: null },
    ]);
  });

  it('requestGoLive, rejectGoLive and approveGoLive move the review with a note, audited; an invalid move is refused', async () => {
    const partner = await createPartner({ ctx: cli(), input: { name: 'Going Live' } });
    const move = (verb: string, note?: string) =>
      gql(admin, `mutation ($p: ID!, $n: String) { ${verb}(partnerId: $p, note: $n) { partnerId status note } }`, {
        p: partner.id,
        n: note,
      });

    expect(errorCode(await move('approveGoLive'))).toMatchObject({ code: 'invalid_go_live_transition' });
    expect((await move('requestGoLive', 'asked by e-mail')).data.requestGoLive).toEqual({
      partnerId: partner.id,
      status: 'requested',
      note: 'asked by e-mail',
    });
    expect((await move('rejectGoLive', 'signature check missing')).data.rejectGoLive).toEqual({
      partnerId: partner.id,
      status: 'rejected',
      note: 'signature check missing',
    });
    expect(errorCode(await move('rejectGoLive'))).toMatchObject({ code: 'invalid_go_live_transition' });
    expect((await move('requestGoLive')).data.requestGoLive).toEqual({ partnerId: partner.id, status: 'requested', note: null });
    expect((await move('approveGoLive', 'all good')).data.approveGoLive).toEqual({
      partnerId: partner.id,
      status: 'approved',
      note: 'all good',
    });
    expect((await gqlData(support, PARTNER_DETAIL, { id: partner.id })).partner.goLive).toEqual({
      partnerId: partner.id,
      status: 'approved',
      note: 'all good',
    });

    const audit = (await auditOf(partner.id)).filter((a) => a.action.startsWith('partner.go_live'));
    expect(audit).toEqual([
      {
        actor: `operator:${admin.id}`,
        action: 'partner.go_live.request',
        before: { go_live_status: 'not_requested', go_live_note: null },
        after: { go_live_status: 'requested', go_live_note: 'asked by e-mail' },
      },
      {
        actor: `operator:${admin.id}`,
        action: 'partner.go_live.reject',
        before: { go_live_status: 'requested', go_live_note: 'asked by e-mail' },
        after: { go_live_status: 'rejected', go_live_note: 'signature check missing' },
      },
      expect.objectContaining({ action: 'partner.go_live.request', after: { go_live_status: 'requested', go_live_note: null } }),
      expect.objectContaining({ action: 'partner.go_live.approve', after: { go_live_status: 'approved', go_live_note: 'all good' } }),
    ]);

    // Approved: production keys may be issued now.
    const issued = await gqlData(admin, `mutation ($p: ID!) { issueCredential(partnerId: $p, environment: production) { key } }`, {
      p: partner.id,
    });
    expect(issued.issueCredential.key).toMatch(/^sk_live_/);
    expect(errorCode(await gql(admin, `mutation { requestGoLive(partnerId: "01JUNKNOWN0000000000000000") { status } }`))).toMatchObject({
      code: 'resource_missing',
    });
  });

  it('setRateLimit sets and clears the override, audited', async () => {
    const partner = await createPartner({ ctx: cli(), input: { name: 'Rate Limited' } });
    const set = `mutation ($p: ID!, $n: Int) { setRateLimit(partnerId: $p, perSecond: $n) { partnerId override perSecond burst } }`;
    expect((await gqlData(admin, set, { p: partner.id, n: 12 })).setRateLimit).toEqual({
      partnerId: partner.id,
      override: 12,
      perSecond: 12,
      burst: 24,
    });
    expect((await gqlData(admin, PARTNER_DETAIL, { id: partner.id })).partner.rateLimit.override).toBe(12);
    expect((await gqlData(admin, set, { p: partner.id, n: null })).setRateLimit).toEqual({
      partnerId: partner.id,
      override: null,
      perSecond: 40,
      burst: 90,
    });
    expect(errorCode(await gql(admin, set, { p: partner.id, n: 0 }))).toMatchObject({ code: 'parameter_out_of_range', param: 'perSecond' });
    expect((await auditOf(partner.id)).filter((a) => a.action === 'partner.rate_limit.set')).toEqual([
      { actor: `operator:${admin.id}`, action: 'partner.rate_limit.set', before: { per_second: null }, after: { per_second: 12 } },
      { actor: `operator:${admin.id}`, action: 'partner.rate_limit.set', before: { per_second: 12 }, after: { per_second: null } },
    ]);
  });
});

describe('roles', () => {
  it('support is refused every admin-only mutation, and nothing changes', async () => {
    const partner = await createPartner({ ctx: cli(), input: { name: 'Guarded' } });
    const cred = await issueCredential({ ctx: cli(), input: { partnerId: partner.id, environment: 'sandbox' } });
    const before = await auditCount();
    const p = partner.id;
    const mutations: [string, Record<string, unknown>][] = [
      ['mutation { createPartner(name: "Nope") { id } }', {}],
      ['mutation ($p: ID!) { issueCredential(partnerId: $p, environment: sandbox) { key } }', { p }],
      ['mutation ($c: String!) { revokeCredential(clientId: $c) { revokedAt } }', { c: cred.client_id }],
      ['mutation ($p: ID!) { addAllowlistEntry(partnerId: $p, cidr: "192.0.2.1") { cidr } }', { p }],
      ['mutation ($p: ID!) { removeAllowlistEntry(partnerId: $p, cidr: "192.0.2.1") }', { p }],
      ['mutation ($p: ID!) { requestGoLive(partnerId: $p) { status } }', { p }],
      ['mutation ($p: ID!) { approveGoLive(partnerId: $p) { status } }', { p }],
      ['mutation ($p: ID!) { rejectGoLive(partnerId: $p) { status } }', { p }],
      ['mutation ($p: ID!) { setRateLimit(partnerId: $p, perSecond: 5) { perSecond } }', { p }],
    ];
    for (const [query, variables] of mutations) {
      const reply = await gql(support, query, variables);
      expect(errorCode(reply), query).toMatchObject({ code: 'forbidden' });
      expect(reply.data, query).toBeNull();
    }
    expect(await auditCount()).toBe(before);
    const { me } = await gqlData(support, '{ me { allowedMutations } }');
    expect(me.allowedMutations).toContain('setSubscriptionStatus');
    expect(me.allowedMutations).not.toContain('issueCredential');
  });

  it('setSubscriptionStatus: support disables and enables any partner endpoint, as the partner API would; audited under the operator', async () => {
    const ctx = cli();
    const partner = await createPartner({ ctx, input: { name: 'Endpoint Owner' } });
    await decideGoLive({ ctx, input: { partnerId: partner.id, decision: 'request' } });
    await decideGoLive({ ctx, input: { partnerId: partner.id, decision: 'approve' } });
    const cred = await issueCredential({ ctx, input: { partnerId: partner.id, environment: 'production' } });
    const owner = clientFor({ baseUrl: svc.url, clientId: cred.client_id, apiKey: cred.api_key });
    const { id } = expectStatus(201, await owner.POST('/partner/webhooks', { body: { url: 'https://hooks.example.com/live' } }));
    const read = async () => expectStatus(200, await owner.GET('/partner/webhooks/{id}', { params: { path: { id } } }));
    await svc.rt.sql`update webhook_subscriptions set failing_since = now() - interval '2 hours' where id = ${id}`;

    const set = `mutation ($id: ID!, $s: WebhookSubscriptionStatus!) {
      setSubscriptionStatus(id: $id, status: $s) { id partnerId environment status disabledReason failingSince }
    }`;
    const disabled = (await gqlData(support, set, { id, s: 'disabled' })).setSubscriptionStatus;
    expect(disabled).toMatchObject({
      id,
      partnerId: partner.id,
      environment: 'production',
      status: 'disabled',
      disabledReason: 'disabled_by_operator',
    });
    expect(await read()).toMatchObject({
      status: 'disabled',
      disabled_reason: 'disabled_by_operator',
    });

    const enabled = (await gqlData(support, set, { id, s: 'enabled' })).setSubscriptionStatus;
    expect(enabled).toMatchObject({ status: 'enabled', disabledReason: null, failingSince: null });
    expect((await read()).status).toBe('enabled');

    const audit = await auditOf(id);
    expect(audit.map((a) => `${a.actor} ${a.action}`)).toEqual([
      `partner:${partner.id} webhook.create`,
      `operator:${support.id} webhook.update`,
      `operator:${support.id} webhook.update`,
    ]);
    expect(audit[1]).toMatchObject({
      before: { status: 'enabled' },
      after: { status: 'disabled', disabled_reason: 'disabled_by_operator' },
    });
    expect(JSON.stringify(audit)).not.toMatch(/whsec_|secret/);

    // Admin may too; an unknown or deleted subscription is resource_missing.
    expect((await gqlData(admin, set, { id, s: 'disabled' })).setSubscriptionStatus.status).toBe('disabled');
    expect(errorCode(await gql(support, set, { id: '01JUNKNOWN0000000000000000', s: 'enabled' }))).toMatchObject({
      code: 'resource_missing',
    });
    expectStatus(200, await owner.DELETE('/partner/webhooks/{id}', { params: { path: { id } } }));
    expect(errorCode(await gql(support, set, { id, s: 'enabled' }))).toMatchObject({ code: 'resource_missing' });
  });
});
